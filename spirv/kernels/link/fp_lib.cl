// A library whose exported function calls through a function pointer: linking a module that
// imports it is refused (fp_lib_user.cl), as calls through pointers need the pointed-to
// functions' module data.
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

int inc(int x) { return x + 1; }
int dec(int x) { return x - 1; }

int pick(int x, int up) {
    int (*f)(int) = up ? inc : dec;
    return f(x);
}
