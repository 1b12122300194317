// Integer arithmetic of several widths, signed and unsigned, with a private array.
kernel void int_ops(global const int *a, global const int *b, global long *out) {
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    uint ux = (uint)x, uy = (uint)y;
    long acc[12];
    acc[0] = x + y;
    acc[1] = x - y;
    acc[2] = x * y;
    acc[3] = x / y; // the host never passes y == 0
    acc[4] = (x + 3) % y;
    acc[5] = ux / uy;
    acc[6] = x << (y & 31);
    acc[7] = x >> (y & 31);
    acc[8] = ux >> (uy & 31);
    acc[9] = (x & y) ^ (x | ~y);
    acc[10] = (x < y) + 2 * (ux < uy) + 4 * (x == y);
    short s = (short)x;
    char c = (char)y;
    acc[11] = (long)s * (long)c + (x > y ? x : y);
    long sum = 0;
    for (int k = 0; k < 12; k++)
        out[i * 13 + k] = acc[k], sum += acc[k] * (k + 1);
    out[i * 13 + 12] = sum;
}
