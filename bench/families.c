/* families.c: PLACEHOLDER. */
typedef int cpk_placeholder_fam;
