/* lemke_basis.c: PLACEHOLDER. */
