/* gunzip_to_compress.c — a MariaDB/MySQL user-defined function:
 *
 *   CREATE FUNCTION gunzip_to_compress RETURNS STRING SONAME 'gzwrap_udf.so';
 *   SELECT UNCOMPRESS(GUNZIP_TO_COMPRESS(gz_blob)) ...
 *
 * (the name as created is the symbol the server looks up; calls ignore case)
 *
 * turns a gzip value (one or more members) into COMPRESS()'s format inside the server,
 * with gzwrap: the deflate bytes are copied and the Adler-32 and length computed by one
 * inflate. NULL for NULL, for input that is not valid gzip (wrong magic, bad CRC-32,
 * truncated, ...) and for data of 1 GiB or more, as UNCOMPRESS() does for bad input;
 * gzip of empty data gives '' (COMPRESS('') is '').
 *
 * The UDF interface comes from MariaDB Connector/C's mysql.h (libmariadb-dev). Its
 * UDF_INIT declares max_length as unsigned int where the server has unsigned long; this
 * file touches only maybe_null and ptr, whose offsets are the same in both, and leaves
 * max_length as the server set it. (The server's own headers are in libmariadbd-dev,
 * which installs the embedded server, about 590 MB.)
 */
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include <gzwrap.h>

typedef struct udf_buffer {
    size_t cap;
    char *p;
} udf_buffer;

my_bool gunzip_to_compress_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
void gunzip_to_compress_deinit(UDF_INIT *initid);
char *gunzip_to_compress(UDF_INIT *initid, UDF_ARGS *args, char *result,
                         unsigned long *length, char *is_null, char *error);

my_bool gunzip_to_compress_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    if (args->arg_count != 1) {
        strcpy(message, "GUNZIP_TO_COMPRESS(gzip_blob) takes one argument");
        return 1;
    }
    args->arg_type[0] = STRING_RESULT;
    udf_buffer *b = calloc(1, sizeof *b);
    if (!b) {
        strcpy(message, "GUNZIP_TO_COMPRESS: out of memory");
        return 1;
    }
    initid->ptr = (char *)b;
    initid->maybe_null = 1;
    return 0;
}

void gunzip_to_compress_deinit(UDF_INIT *initid) {
    udf_buffer *b = (udf_buffer *)initid->ptr;
    if (b) {
        free(b->p);
        free(b);
    }
}

char *gunzip_to_compress(UDF_INIT *initid, UDF_ARGS *args, char *result,
                         unsigned long *length, char *is_null, char *error) {
    (void)result;
    udf_buffer *b = (udf_buffer *)initid->ptr;
    const char *in = args->args[0];
    size_t n = args->lengths[0];
    *is_null = 0;
    *error = 0;
    if (!in) {
        *is_null = 1;
        return NULL;
    }
    size_t need = gzwrap_buffer_bound(n);
    if (need > b->cap) {
        char *p = realloc(b->p, need);
        if (!p) {
            *error = 1;
            return NULL;
        }
        b->p = p, b->cap = need;
    }
    gzwrap_options opt;
    gzwrap_options_init(&opt);
    opt.from = GZWRAP_FORMAT_GZIP;
    opt.to = GZWRAP_FORMAT_MYSQL;
    size_t out_n = 0;
    if (gzwrap_buffer_convert(&opt, in, n, b->p, b->cap, &out_n, NULL) != GZWRAP_OK) {
        *is_null = 1;
        return NULL;
    }
    *length = (unsigned long)out_n;
    return b->p;
}
