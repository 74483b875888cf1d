/* scenes.h: the Bullet scenes the adapter is tested and benchmarked on (box stack, hinge chain). */
#ifndef CPK_BULLET_SCENES_H
#define CPK_BULLET_SCENES_H
#include <vector>
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/MLCPSolvers/btMLCPSolver.h>

/** A world stepped by btMLCPSolver around one btMLCPSolverInterface (borrowed). */
struct Scene {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher;
  btDbvtBroadphase broadphase;
  btMLCPSolver solver;
  btDiscreteDynamicsWorld world;
  std::vector<btCollisionShape *> shapes;
  std::vector<btRigidBody *> bodies; /* dynamic bodies, in creation order */
  std::vector<btVector3> start;      /* their positions when created */
  std::vector<btTypedConstraint *> joints;

  explicit Scene(btMLCPSolverInterface *mlcp);
  ~Scene();
  btRigidBody *addBox(const btVector3 &half, const btVector3 &pos, double mass);
  void step(int n);
  /** Largest distance of a body from where it was created. */
  double drift() const;
  /** 1 if a position or velocity is not finite or a speed exceeds vmax. */
  bool exploded(double vmax) const;
};

/** Ground and nboxes unit cubes stacked, each shifted by `offset` along x from the one below. */
void build_stack(Scene &s, int nboxes, double offset);
/** A chain of `links` boxes joined by hinges (axis z), the first hinged to a fixed point, starting horizontal. */
void build_chain(Scene &s, int links);
/** Largest distance between the two bodies' pivot points of a hinge (the joint error). */
double chain_error(const Scene &s);
#endif
