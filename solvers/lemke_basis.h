/* lemke_basis.h: PLACEHOLDER. */
