/* fc_rows_build.h: what fc_rows.c and fc_rows_read.c share to build one rank's rows (cpkit/rows.h). */
#ifndef CPK_FC_ROWS_BUILD_H
#define CPK_FC_ROWS_BUILD_H
#include <cpkit/rows.h>

/* Entries per contact (nc values) from entries per row (nc * dim values). */
void fc_rows_contact_nnz(const size_t *row_nnz, size_t nc, size_t dim, size_t *contact_nnz);

/* Rank `rank` of `size`'s contacts [*c0, *c1): contiguous blocks balanced by the entries
 * of contact_nnz (nc values); equal counts of contacts when there is no entry. */
void fc_rows_split(const size_t *contact_nnz, size_t nc, int rank, int size, size_t *c0, size_t *c1);

/* A share of contacts [c0, c1) of a problem of n unknowns, dim per contact: rowptr from
 * row_nnz (the local rows' counts), col, val, q and mu allocated, not filled. On failure
 * *out may hold a partial object for cpk_fc_rows_free. */
int fc_rows_new(size_t n, size_t dim, size_t c0, size_t c1, const size_t *row_nnz, cpk_fc_rows **out);

#endif
