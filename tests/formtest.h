/* formtest.h: helpers shared by the formulation tests: small contact systems, solving, hand-set unknowns, finite-difference Jacobians. */
#ifndef CPK_FORMTEST_H
#define CPK_FORMTEST_H
#include <stddef.h>
#include <cpkit/cpkit.h>

#define FT_G 9.81

/* Point mass m (3 velocities: x, y, z), gravity along -z, step h, velocity v. */
cpk_contact_system *ft_particle(double m, double h, const double v[3]);
/* Contact with the plane z = 0 (n = z, t = x, o = y); params may be NULL (mu = 0). */
int ft_plane_contact(cpk_contact_system *s, const cpk_contact_params *p);
/* Seed 000 section 4.1: unit sphere, unit mass, M = diag(1,1,1, .4,.4,.4), g_obj = (0,0,-9.81,0,0,0),
 * contact at r = (0,0,-1) with n = z and t, o rotated pi/4 from x, y; mu = 0.2, e = (1, 1, 0.4). */
cpk_contact_system *ft_sphere(double h, const double v[6]);
/* Rigid bodies (6 velocities each, diagonal mass) with random contacts, gravity; NULL on failure. */
cpk_contact_system *ft_random_bodies(size_t nbodies, size_t ncontacts, double h, unsigned long seed,
                                     int compliant);

/* Solve with a registered solver; NULL result when it is not registered or the call failed. */
cpk_result *ft_solve(const cpk_problem *p, const char *solver, double tol);
/* z[index of (role, contact, index)] = value; returns 0 when the unknown does not exist. */
int ft_set(const cpk_varmap *m, double *z, cpk_var_role role, size_t c, size_t idx, double value);
double ft_get(const cpk_varmap *m, const double *z, cpk_var_role role, size_t c, size_t idx);
/* Largest |J - FD(J)| over all entries (central differences, step eps), relative to max(1, |J|);
 * also counts FD entries above tol outside the pattern into *outside. */
double ft_jacobian_error(const cpk_problem *p, const double *z, double eps, double tol,
                         size_t *outside);
/* Natural residual of z. */
double ft_residual(const cpk_problem *p, const double *z);
/* Nonlinear MCP solvers registered now (first found), or NULL. */
const char *ft_nonlinear_solver(void);
#endif
