/* scenes.cpp: the Bullet scenes of the adapter's test and bench: a world around btMLCPSolver, a box stack, a hinge chain. */
#include <cmath>
#include "scenes.h"

Scene::Scene(btMLCPSolverInterface *mlcp)
    : dispatcher(&config), solver(mlcp), world(&dispatcher, &broadphase, &solver, &config)
{
  world.setGravity(btVector3(0, -10, 0));
  /* Bullet's MLCP demo: one constraint row per batch, so the direct solver sees the whole island */
  world.getSolverInfo().m_minimumSolverBatchSize = 1;
}

Scene::~Scene()
{
  for (size_t k = 0; k < joints.size(); k++) {
    world.removeConstraint(joints[k]);
    delete joints[k];
  }
  for (int k = world.getNumCollisionObjects() - 1; k >= 0; k--) {
    btCollisionObject *o = world.getCollisionObjectArray()[k];
    btRigidBody *b = btRigidBody::upcast(o);
    if (b) delete b->getMotionState();
    world.removeCollisionObject(o);
    delete o;
  }
  for (size_t k = 0; k < shapes.size(); k++) delete shapes[k];
}

btRigidBody *Scene::addBox(const btVector3 &half, const btVector3 &pos, double mass)
{
  btBoxShape *shape = new btBoxShape(half);
  shapes.push_back(shape);
  btVector3 inertia(0, 0, 0);
  if (mass > 0) shape->calculateLocalInertia((btScalar)mass, inertia);
  btTransform t;
  t.setIdentity();
  t.setOrigin(pos);
  btDefaultMotionState *ms = new btDefaultMotionState(t);
  btRigidBody::btRigidBodyConstructionInfo info((btScalar)mass, ms, shape, inertia);
  btRigidBody *body = new btRigidBody(info);
  body->setActivationState(DISABLE_DEACTIVATION); /* keep every step's problem */
  world.addRigidBody(body);
  if (mass > 0) {
    bodies.push_back(body);
    start.push_back(pos);
  }
  return body;
}

void Scene::step(int n)
{
  for (int k = 0; k < n; k++) world.stepSimulation(btScalar(1.0 / 60), 1, btScalar(1.0 / 60));
}

double Scene::drift() const
{
  double d = 0;
  for (size_t k = 0; k < bodies.size(); k++)
    d = std::fmax(d, (double)(bodies[k]->getCenterOfMassPosition() - start[k]).length());
  return d;
}

bool Scene::exploded(double vmax) const
{
  for (size_t k = 0; k < bodies.size(); k++) {
    btVector3 p = bodies[k]->getCenterOfMassPosition(), v = bodies[k]->getLinearVelocity();
    if (!std::isfinite((double)p.length2()) || !std::isfinite((double)v.length2())) return true;
    if ((double)v.length() > vmax) return true;
  }
  return false;
}

void build_stack(Scene &s, int nboxes, double offset)
{
  s.addBox(btVector3(10, 0.5, 10), btVector3(0, -0.5, 0), 0.0); /* ground, top face at y = 0 */
  for (int k = 0; k < nboxes; k++)
    s.addBox(btVector3(0.5, 0.5, 0.5), btVector3((btScalar)(k * offset), (btScalar)(0.5 + k), 0), 1.0);
}

void build_chain(Scene &s, int links)
{
  const btVector3 half(0.4, 0.1, 0.1);
  btRigidBody *prev = NULL;
  for (int k = 0; k < links; k++) {
    btRigidBody *b = s.addBox(half, btVector3((btScalar)(0.4 + 0.8 * k), 5, 0), 1.0);
    btHingeConstraint *h;
    if (!prev)
      h = new btHingeConstraint(*b, btVector3(-0.4, 0, 0), btVector3(0, 0, 1));
    else
      h = new btHingeConstraint(*prev, *b, btVector3(0.4, 0, 0), btVector3(-0.4, 0, 0),
                                btVector3(0, 0, 1), btVector3(0, 0, 1));
    s.world.addConstraint(h, true);
    s.joints.push_back(h);
    prev = b;
  }
}

double chain_error(const Scene &s)
{
  double e = 0;
  for (size_t k = 1; k < s.bodies.size() && k < s.joints.size(); k++) {
    btVector3 a = s.bodies[k - 1]->getWorldTransform() * btVector3(0.4, 0, 0);
    btVector3 b = s.bodies[k]->getWorldTransform() * btVector3(-0.4, 0, 0);
    e = std::fmax(e, (double)(a - b).length());
  }
  return e;
}
