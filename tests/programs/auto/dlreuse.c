/*
 * dlreuse.c - a library unloaded, and another loaded at the same address.
 *
 *   dlreuse DIR
 *
 * Loads DIR/libauto_plugin_a.so, calls plugin_a 3 times, unloads it; loads
 * DIR/libauto_plugin_b.so and calls plugin_b 2 times. Prints "a ADDRESS" and "b ADDRESS",
 * the two functions' addresses: when they are equal, B took A's place.
 */
#include <dlfcn.h>
#include <stdio.h>

/* Load DIR/libauto_NAME.so and call its function NAME count times; print its address. */
static int call(const char *dir, const char *name, int count, int unload)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/libauto_%s.so", dir, name);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlreuse: %s\n", dlerror());
        return 1;
    }
    int (*fn)(int) = (int (*)(int))dlsym(lib, name);
    if (!fn) {
        fprintf(stderr, "dlreuse: %s\n", dlerror());
        return 1;
    }
    int sum = 0;
    for (int i = 0; i < count; i++)
        sum += fn(i);
    printf("%c %p %d\n", name[7], (void *)fn, sum);
    if (unload && dlclose(lib) != 0) {
        fprintf(stderr, "dlreuse: %s\n", dlerror());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlreuse DIR\n");
        return 2;
    }
    if (call(argv[1], "plugin_a", 3, 1) != 0 || call(argv[1], "plugin_b", 2, 0) != 0)
        return 1;
    return 0;
}
