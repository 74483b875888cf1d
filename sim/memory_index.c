/* memory_index.c: finding a contact's remembered state from the last step by a hash of (bodies, feature), so a step with many contacts does not scan the whole memory for each. */
#include <stdint.h>
#include <stdlib.h>
#include <cpkit/util.h>
#include "assemble.h"

static size_t slot_of(size_t b0, size_t b1, int feature, size_t mask)
{
  uint64_t h = (uint64_t)b0 * 0x9E3779B97F4A7C15u;
  h ^= ((uint64_t)b1 + 0x7F4A7C15u) * 0xBF58476D1CE4E5B9u;
  h ^= (uint64_t)(unsigned)feature * 0x94D049BB133111EBu;
  h ^= h >> 31;
  return (size_t)h & mask;
}

void sim_memory_reindex(cpk_world *w)
{
  size_t cap = 16;
  while (cap < 2 * w->nmemory && cap <= SIZE_MAX / 4) cap *= 2;
  if (cap > w->mem_slots_cap) {
    size_t *s = cpk_alloc_array(cap, sizeof *s);
    if (!s) { /* no index: sim_memory_find scans */
      w->mem_indexed = (size_t)-1;
      return;
    }
    free(w->mem_slots);
    w->mem_slots = s;
    w->mem_slots_cap = cap;
  }
  for (size_t k = 0; k < cap; k++) w->mem_slots[k] = 0;
  for (size_t i = 0; i < w->nmemory; i++) {
    const sim_memory *m = &w->memory[i];
    size_t k = slot_of(m->body[0], m->body[1], m->feature, cap - 1);
    while (w->mem_slots[k]) k = (k + 1) & (cap - 1);
    w->mem_slots[k] = i + 1;
  }
  w->mem_mask = cap - 1;
  w->mem_indexed = w->nmemory;
}

const sim_memory *sim_memory_find(const cpk_world *w, const sim_geom *g)
{
  if (w->mem_indexed != w->nmemory || !w->mem_slots) { /* no index for this memory */
    for (size_t i = 0; i < w->nmemory; i++) {
      const sim_memory *m = &w->memory[i];
      if (m->body[0] == g->body[0] && m->body[1] == g->body[1] && m->feature == g->feature)
        return m;
    }
    return NULL;
  }
  for (size_t k = slot_of(g->body[0], g->body[1], g->feature, w->mem_mask); w->mem_slots[k];
       k = (k + 1) & w->mem_mask) {
    const sim_memory *m = &w->memory[w->mem_slots[k] - 1];
    if (m->body[0] == g->body[0] && m->body[1] == g->body[1] && m->feature == g->feature)
      return m;
  }
  return NULL;
}
