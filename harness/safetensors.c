#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "safetensors.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors data is little-endian; this reader assumes a little-endian host"
#endif

// The reference implementation refuses headers above 100 MB.
#define MAX_HEADER 100000000ull

static const struct {
    const char *name;
    size_t size;
} DTYPES[] = {
    {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2},
    {"I32", 4}, {"U32", 4}, {"F32", 4}, {"F64", 8}, {"I64", 8}, {"U64", 8},
};

#define ERR(...) (snprintf(err, err_size, __VA_ARGS__), -1)

static int cmp_begin(const void *a, const void *b)
{
    const xf_st_tensor *x = *(const xf_st_tensor *const *)a, *y = *(const xf_st_tensor *const *)b;
    return (x->data > y->data) - (x->data < y->data);
}

// One tensor's entry: {"dtype": s, "shape": [n...], "data_offsets": [b, e]}
// and nothing else.
static int parse_entry(const char *name, const xf_json *e, const uint8_t *data, size_t data_size,
                       xf_st_tensor *t, char *err, size_t err_size)
{
    if (e->type != XF_JSON_OBJECT) return ERR("tensor '%s': entry is not a JSON object", name);
    for (size_t i = 0; i < e->len; i++)
        if (strcmp(e->key[i], "dtype") && strcmp(e->key[i], "shape") && strcmp(e->key[i], "data_offsets"))
            return ERR("tensor '%s': unexpected field '%s'", name, e->key[i]);
    const xf_json *dt = xf_json_get(e, "dtype"), *sh = xf_json_get(e, "shape"),
                  *off = xf_json_get(e, "data_offsets");
    if (!dt || dt->type != XF_JSON_STRING) return ERR("tensor '%s': no dtype string", name);
    if (!sh || sh->type != XF_JSON_ARRAY) return ERR("tensor '%s': no shape array", name);
    if (!off || off->type != XF_JSON_ARRAY || off->len != 2)
        return ERR("tensor '%s': data_offsets is not [begin, end]", name);
    t->elem_size = 0;
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (!strcmp(dt->string, DTYPES[i].name)) {
            t->elem_size = DTYPES[i].size;
            snprintf(t->dtype, sizeof t->dtype, "%s", DTYPES[i].name);
        }
    if (!t->elem_size) return ERR("tensor '%s': unknown dtype '%.20s'", name, dt->string);
    if (sh->len > XF_ST_MAX_DIMS) return ERR("tensor '%s': %zu dimensions, at most %d", name, sh->len, XF_ST_MAX_DIMS);
    t->ndim = (int)sh->len;
    // Element counts are capped at 2^48 so numel * 8 cannot overflow.
    unsigned long long numel = 1;
    for (int d = 0; d < t->ndim; d++) {
        const xf_json *n = &sh->child[d];
        if (n->type != XF_JSON_NUMBER || !n->is_integer || n->integer < 0)
            return ERR("tensor '%s': shape entry %d is not a non-negative integer", name, d);
        t->shape[d] = n->integer;
        if (n->integer > (1ll << 48) || (n->integer && numel > (1ull << 48) / (unsigned long long)n->integer))
            return ERR("tensor '%s': shape has more than 2^48 elements", name);
        numel *= (unsigned long long)n->integer;
    }
    long long be[2];
    for (int i = 0; i < 2; i++) {
        const xf_json *n = &off->child[i];
        if (n->type != XF_JSON_NUMBER || !n->is_integer || n->integer < 0)
            return ERR("tensor '%s': data_offsets[%d] is not a non-negative integer", name, i);
        be[i] = n->integer;
    }
    if (be[0] > be[1]) return ERR("tensor '%s': data_offsets [%lld, %lld] end before they begin", name, be[0], be[1]);
    if ((unsigned long long)be[1] > data_size)
        return ERR("tensor '%s': data_offsets [%lld, %lld] run past the %zu data bytes", name, be[0], be[1], data_size);
    t->numel = (size_t)numel;
    t->nbytes = (size_t)(be[1] - be[0]);
    if (t->nbytes != numel * t->elem_size)
        return ERR("tensor '%s': data_offsets [%lld, %lld] hold %zu bytes, %s of %llu elements needs %llu",
                   name, be[0], be[1], t->nbytes, t->dtype, numel, numel * t->elem_size);
    t->data = data + be[0];
    return 0;
}

static int parse_metadata(const xf_json *m, xf_st *st, char *err, size_t err_size)
{
    if (m->type != XF_JSON_OBJECT) return ERR("__metadata__ is not a JSON object");
    st->meta_key = calloc(m->len + 1, sizeof *st->meta_key);
    st->meta_val = calloc(m->len + 1, sizeof *st->meta_val);
    if (!st->meta_key || !st->meta_val) return ERR("out of memory");
    for (size_t i = 0; i < m->len; i++) {
        if (m->child[i].type != XF_JSON_STRING) return ERR("__metadata__ '%.60s' is not a string", m->key[i]);
        st->meta_key[i] = strdup(m->key[i]);
        st->meta_val[i] = strdup(m->child[i].string);
        st->nmeta++;
        if (!st->meta_key[i] || !st->meta_val[i]) return ERR("out of memory");
    }
    return 0;
}

// Every data byte must belong to exactly one tensor, as the reference
// implementation requires: no overlap, no hole, nothing after the last.
static int check_coverage(xf_st *st, const uint8_t *data, size_t data_size, char *err, size_t err_size)
{
    const xf_st_tensor **order = malloc((size_t)(st->n ? st->n : 1) * sizeof *order);
    if (!order) return ERR("out of memory");
    for (int i = 0; i < st->n; i++) order[i] = &st->t[i];
    qsort(order, (size_t)st->n, sizeof *order, cmp_begin);
    const uint8_t *at = data;
    const xf_st_tensor *prev = NULL;
    int rc = 0;
    for (int i = 0; i < st->n && !rc; i++) {
        // Empty tensors take no bytes and may sit anywhere in range.
        if (!order[i]->nbytes) continue;
        if (order[i]->data < at)
            rc = ERR("tensor '%s' overlaps tensor '%s'", order[i]->name, prev->name);
        else if (order[i]->data > at)
            rc = ERR("data bytes %zu to %zu before tensor '%s' belong to no tensor",
                     (size_t)(at - data), (size_t)(order[i]->data - data), order[i]->name);
        at = order[i]->data + order[i]->nbytes;
        prev = order[i];
    }
    if (!rc && at != data + data_size)
        rc = ERR("%zu data bytes after the last tensor belong to no tensor", (size_t)(data + data_size - at));
    free(order);
    return rc;
}

int xf_st_parse(const uint8_t *buf, size_t size, xf_st *st, char *err, size_t err_size)
{
    memset(st, 0, sizeof *st);
    if (size < 8) return ERR("file is %zu bytes, shorter than the 8-byte header length", size);
    unsigned long long n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | buf[i];
    if (n > size - 8)
        return ERR("header length %llu runs past the end of the %zu-byte file", n, size);
    if (n > MAX_HEADER) return ERR("header length %llu is over the 100 MB limit", n);
    if (n < 2 || buf[8] != '{') return ERR("header does not start with '{'");
    char msg[200];
    xf_json *root = xf_json_parse((const char *)buf + 8, (size_t)n, msg, sizeof msg);
    if (!root) return ERR("%s", msg);
    int rc = 0;
    if (root->type != XF_JSON_OBJECT) rc = ERR("header is not a JSON object");
    const uint8_t *data = buf + 8 + n;
    size_t data_size = size - 8 - (size_t)n;
    st->t = calloc(root->len + 1, sizeof *st->t);
    if (!rc && !st->t) rc = ERR("out of memory");
    for (size_t i = 0; !rc && i < root->len; i++) {
        if (!strcmp(root->key[i], "__metadata__")) {
            rc = parse_metadata(&root->child[i], st, err, err_size);
            continue;
        }
        xf_st_tensor *t = &st->t[st->n];
        if (!(t->name = strdup(root->key[i]))) rc = ERR("out of memory");
        else st->n++, rc = parse_entry(t->name, &root->child[i], data, data_size, t, err, err_size);
    }
    if (!rc) rc = check_coverage(st, data, data_size, err, err_size);
    xf_json_free(root);
    if (rc) xf_st_free(st);
    return rc;
}

int xf_st_load(const char *path, double max_bytes, xf_st *st, char *err, size_t err_size)
{
    memset(st, 0, sizeof *st);
    FILE *f = fopen(path, "rb");
    if (!f) return ERR("%s: %s", path, strerror(errno));
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) return fclose(f), ERR("%s: cannot determine its size", path);
    if ((double)size > max_bytes)
        return fclose(f), ERR("%s: %ld bytes, more than the %.0f bytes available", path, size, max_bytes);
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf) return fclose(f), ERR("%s: out of memory reading %ld bytes", path, size);
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    if (got != (size_t)size) return free(buf), ERR("%s: read %zu of %ld bytes", path, got, size);
    char msg[300];
    if (xf_st_parse(buf, (size_t)size, st, msg, sizeof msg)) {
        free(buf);
        return ERR("%s: %s", path, msg);
    }
    st->owned = buf;
    return 0;
}

void xf_st_free(xf_st *st)
{
    for (int i = 0; i < st->n; i++) free(st->t[i].name);
    for (int i = 0; i < st->nmeta; i++) free(st->meta_key[i]), free(st->meta_val[i]);
    free(st->t);
    free(st->meta_key);
    free(st->meta_val);
    free(st->owned);
    memset(st, 0, sizeof *st);
}

const xf_st_tensor *xf_st_find(const xf_st *st, const char *name)
{
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->t[i].name, name)) return &st->t[i];
    return NULL;
}

const char *xf_st_meta(const xf_st *st, const char *key)
{
    for (int i = 0; i < st->nmeta; i++)
        if (!strcmp(st->meta_key[i], key)) return st->meta_val[i];
    return NULL;
}

int xf_st_write(const char *path, const xf_st_out *t, int n, const char *const *meta_kv,
                int nmeta, char *err, size_t err_size)
{
    // The header is built in memory first: its length comes before it.
    char *hdr = NULL;
    size_t hlen = 0;
    FILE *h = open_memstream(&hdr, &hlen);
    if (!h) return ERR("out of memory");
    fputc('{', h);
    if (nmeta) {
        fputs("\"__metadata__\":{", h);
        for (int i = 0; i < nmeta; i++) {
            if (i) fputc(',', h);
            xf_json_write_string(h, meta_kv[2 * i]);
            fputc(':', h);
            xf_json_write_string(h, meta_kv[2 * i + 1]);
        }
        fputc('}', h);
    }
    size_t offset = 0;
    for (int i = 0; i < n; i++) {
        size_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++) numel *= (size_t)t[i].shape[d];
        if (i || nmeta) fputc(',', h);
        xf_json_write_string(h, t[i].name);
        fputs(":{\"dtype\":\"F32\",\"shape\":[", h);
        for (int d = 0; d < t[i].ndim; d++) fprintf(h, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        fprintf(h, "],\"data_offsets\":[%zu,%zu]}", offset, offset + 4 * numel);
        offset += 4 * numel;
    }
    fputc('}', h);
    // Pad with spaces so the data starts 8-byte aligned, as the format allows.
    while ((8 + ftell(h)) % 8) fputc(' ', h);
    fclose(h);
    FILE *f = fopen(path, "wb");
    if (!f) return free(hdr), ERR("%s: %s", path, strerror(errno));
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)((unsigned long long)hlen >> (8 * i));
    int ok = fwrite(len, 1, 8, f) == 8 && fwrite(hdr, 1, hlen, f) == hlen;
    for (int i = 0; ok && i < n; i++) {
        size_t numel = 1;
        for (int d = 0; d < t[i].ndim; d++) numel *= (size_t)t[i].shape[d];
        ok = fwrite(t[i].data, sizeof(float), numel, f) == numel;
    }
    free(hdr);
    if (fclose(f) != 0 || !ok) return ERR("%s: write failed", path);
    return 0;
}
