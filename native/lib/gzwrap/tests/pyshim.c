/* pyshim.c — a flat entry point for the Python tests (ctypes), so that they need not
 * mirror gzwrap_options and gzwrap_report in Python: convert one buffer, say what
 * happened in plain values. Built only into the tests' shared library. */
#include <stdio.h>
#include <string.h>

#include <gzwrap.h>

int gzwrap_pyshim_convert(int from, int to, int inflater, const void *in, size_t n, void *out,
                          size_t cap, size_t *out_n, unsigned long long *error_offset,
                          char *message, size_t message_cap, unsigned long long *members) {
    gzwrap_options opt;
    gzwrap_options_init(&opt);
    opt.from = (gzwrap_format)from;
    opt.to = (gzwrap_format)to;
    opt.inflater = (gzwrap_impl)inflater;
    gzwrap_report rep;
    gzwrap_status st = gzwrap_buffer_convert(&opt, in, n, out, cap, out_n, &rep);
    *error_offset = rep.error_offset;
    *members = rep.members;
    snprintf(message, message_cap, "%s", st ? rep.error : "");
    return (int)st;
}
