/*
 * plugin_a_lib.c - libauto_plugin_a.so, instrumented, loaded and unloaded by dlreuse.c. Built
 * from the same shape as plugin_b_lib.c, so the loader tends to put B where A was.
 */
int plugin_a(int x);

int plugin_a(int x) { return x * 3 + 1; }
