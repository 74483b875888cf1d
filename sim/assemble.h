/* assemble.h: the body-form contact system of one step (internal to sim/). */
#ifndef CPK_SIM_ASSEMBLE_H
#define CPK_SIM_ASSEMBLE_H
#include "world.h"

/* dof[b] = index of body b's first generalized velocity, or (size_t)-1; *nv
 * the total. Returns 1 when there is a dynamic body. */
int sim_dofs(const cpk_world *w, size_t *dof, size_t *nv);
/* The contact system of the world's current state with contacts g[0..ng-1]:
 * lever arms from the body positions in `pose` (NULL: the current ones, else
 * the end-of-step estimate of an implicit sweep); psi[c] overrides the gap of
 * contact c (NULL: the geometric gap). */
int sim_assemble(const cpk_world *w, const cpk_body *pose, const sim_geom *g, size_t ng,
                 const double *psi, cpk_contact_system **out, cpk_error *err);
/* sim_assemble into B->sys: a system of an earlier call is reset and refilled
 * (cpk_contact_system_reset_body: its arrays reused), NULL gets a new one; on failure
 * B->sys is freed and NULL. B's dof, vk and M are the work arrays, kept (grown as needed):
 * a step with the same bodies allocates nothing here. */
int sim_assemble_again(const cpk_world *w, sim_step_buf *B, const cpk_body *pose,
                       const sim_geom *g, size_t ng, const double *psi, cpk_error *err);
/* Everything B holds. */
void sim_step_buf_free(sim_step_buf *B);
/* The remembered state of the contact of g from the last step, or NULL. */
const sim_memory *sim_memory_find(const cpk_world *w, const sim_geom *g);

#endif
