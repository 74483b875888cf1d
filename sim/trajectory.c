/* trajectory.c: the CSV trajectory of a run (one row per step) and the per-contact CSV. */
#include <stdio.h>
#include "world.h"

static const char *const body_columns[] = {"x",  "y",  "z",  "qw", "qx",       "qy",
                                           "qz", "vx", "vy", "vz", "wx",       "wy",
                                           "wz", "contacts", "fn", "ft", "mr", "mode"};
#define NCOLS (sizeof body_columns / sizeof body_columns[0])

int cpk_world_csv_header(const cpk_world *w, FILE *f)
{
  fputs("time", f);
  for (size_t b = 0; b < w->nbodies; b++)
    for (size_t c = 0; c < NCOLS && w->bodies[b].kind == CPK_BODY_DYNAMIC; c++)
      fprintf(f, ",%s.%s", w->bodies[b].name, body_columns[c]);
  fputs(",energy,iterations,residual\n", f);
  return ferror(f) ? CPK_EIO : CPK_OK;
}

int cpk_world_csv_row(const cpk_world *w, const cpk_sim_step_info *info, FILE *f)
{
  static const char *const sums[] = {"contacts", "fn", "ft", "mr", "mode"};
  char name[64];
  fprintf(f, "%.10g", w->time);
  for (size_t b = 0; b < w->nbodies; b++) {
    const cpk_body *B = &w->bodies[b];
    if (B->kind != CPK_BODY_DYNAMIC) continue;
    const double *state[4] = {B->x, B->q, B->v, B->w};
    const int len[4] = {3, 4, 3, 3};
    for (int s = 0; s < 4; s++)
      for (int i = 0; i < len[s]; i++) fprintf(f, ",%.10g", state[s][i]);
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
      double v = 0;
      snprintf(name, sizeof name, "%s.%s", B->name, sums[k]);
      cpk_world_quantity(w, name, &v, NULL);
      fprintf(f, ",%.10g", v);
    }
  }
  fprintf(f, ",%.10g,%ld,%.3g\n", cpk_world_energy(w), info ? info->iterations : 0L,
          info ? info->residual : 0.0);
  return ferror(f) ? CPK_EIO : CPK_OK;
}

int cpk_world_contacts_csv_header(FILE *f)
{
  fputs("time,body,body2,feature,px,py,pz,nx,ny,nz,gap,Pn,Pt,Po,Pr,delta_n,mode\n", f);
  return ferror(f) ? CPK_EIO : CPK_OK;
}

int cpk_world_contacts_csv_rows(const cpk_world *w, FILE *f)
{
  for (size_t c = 0; c < w->ncontacts; c++) {
    const cpk_sim_contact *k = &w->contacts[c];
    fprintf(f, "%.10g,%s,%s,%d", w->time, w->bodies[k->body[0]].name,
            w->bodies[k->body[1]].name, k->feature);
    for (int i = 0; i < 3; i++) fprintf(f, ",%.10g", k->point[i]);
    for (int i = 0; i < 3; i++) fprintf(f, ",%.10g", k->normal[i]);
    fprintf(f, ",%.10g", k->gap);
    for (int i = 0; i < 4; i++) fprintf(f, ",%.10g", k->P[i]);
    fprintf(f, ",%.10g,%d\n", k->delta[0], k->mode);
  }
  return ferror(f) ? CPK_EIO : CPK_OK;
}
