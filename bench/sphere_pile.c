/* sphere_pile.c: the generated pile of spheres of bench/step_split: a square layer on a plane and a second layer in its hollows. */
#include <math.h>
#include "sphere_pile.h"

static int add_sphere(cpk_world *w, double x, double y, double z)
{
  cpk_body b;
  cpk_body_default(&b);
  b.shape.size[0] = 0.5;
  for (int i = 0; i < 3; i++) b.inertia[i] = 0.4 * 0.25;
  b.x[0] = x;
  b.x[1] = y;
  b.x[2] = z;
  return cpk_world_add_body(w, &b, NULL, NULL);
}

/* Layer 0 a x a on the plane z = 0, layer 1 in its hollows, until n spheres; with one
 * layer, n spheres side by side and touching. */
int cpk_bench_sphere_pile(cpk_world *w, size_t n, int layers)
{
  cpk_body ground;
  cpk_body_default(&ground);
  ground.kind = CPK_BODY_FIXED;
  ground.shape.kind = CPK_SHAPE_PLANE;
  int rc = cpk_world_add_body(w, &ground, NULL, NULL);
  double r = 0.5, s = (layers == 1 ? 2.0 : 2.2) * r, z1 = r + sqrt(4 * r * r - 2 * (s / 2) * (s / 2));
  size_t a = (size_t)ceil(sqrt(layers == 1 ? (double)n : (double)n / 2 + 1)) + 1, placed = 0;
  for (size_t k = 0; !rc && k < a * a && placed < n; k++, placed++)
    rc = add_sphere(w, s * (double)(k % a), s * (double)(k / a), r);
  for (size_t k = 0; !rc && k < (a - 1) * (a - 1) && placed < n; k++, placed++)
    rc = add_sphere(w, s * ((double)(k % (a - 1)) + 0.5), s * ((double)(k / (a - 1)) + 0.5), z1);
  cpk_contact_params m;
  cpk_contact_params_default(&m);
  m.mu = 0.5;
  if (!rc) rc = cpk_world_set_default_material(w, &m, NULL);
  return rc;
}
