/*
 * plugin_b_lib.c - libauto_plugin_b.so, instrumented, loaded by dlreuse.c after
 * libauto_plugin_a.so is unloaded: same shape, so its function tends to land at plugin_a's
 * address.
 */
int plugin_b(int x);

int plugin_b(int x) { return x * 3 + 1; }
