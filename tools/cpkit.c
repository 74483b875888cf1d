/* cpkit.c: PLACEHOLDER. */
int main(void) { return 1; }
