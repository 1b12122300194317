// Conversions between integer widths and between integers and floats.
kernel void conversions(global const int *a, global const double *d, global long *out,
                        global double *fout) {
    size_t i = get_global_id(0);
    int x = a[i];
    double v = d[i];
    out[i * 6 + 0] = (long)(char)x;
    out[i * 6 + 1] = (long)(uchar)x;
    out[i * 6 + 2] = (long)(short)x;
    out[i * 6 + 3] = (long)(ushort)x;
    out[i * 6 + 4] = (long)(uint)x;
    out[i * 6 + 5] = (long)v;
    fout[i * 4 + 0] = (double)x;
    fout[i * 4 + 1] = (double)(uint)x;
    fout[i * 4 + 2] = (double)(float)v;
    fout[i * 4 + 3] = (double)(ulong)(v < 0 ? -v : v);
}
