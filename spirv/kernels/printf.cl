// printf: integer, float, string, character and vector conversions with flags, widths,
// precisions and length modifiers.
kernel void printf_k(global const int *a, global const float *f) {
    size_t i = get_global_id(0);
    int v = a[i];
    float x = f[i];
    printf("item %d: [%5d|%-5d|%05d|%+d|%x|%#X|%o|%u|%.3d]\n", (int)i, v, v, v, v, v, v, v,
           (uint)v, v);
    printf("%f %.2f %e %.3E %g %G %10.4f %-12.1e| %+.0f %#.0e %g\n", x, x, x, x, x, x, x, x, x,
           x, x * 1e-6f);
    printf("%s %5.2s %c %ld %hd %hhd %lx %%\n", "str", "abc", 'A' + (int)i, (long)v * 100000,
           (short)v, (char)v, (ulong)v);
    printf("%v4d|%v2hlf|%#v2hhx\n", vload4(0, a + i), (float2)(x, -x),
           (uchar2)((uchar)v, (uchar)i));
}
