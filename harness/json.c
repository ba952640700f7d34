#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

typedef struct {
    const char *start, *p, *end;
    char *err;
    size_t err_size;
    int failed;
} parser;

static void fail(parser *ps, const char *what)
{
    if (!ps->failed)
        snprintf(ps->err, ps->err_size, "invalid JSON header: %s at byte %ld", what,
                 (long)(ps->p - ps->start));
    ps->failed = 1;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int hex4(parser *ps, unsigned *out)
{
    if (ps->end - ps->p < 4) return fail(ps, "truncated \\u escape"), -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return fail(ps, "bad \\u escape"), -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
               o[2] = (char)(0x80 | (cp & 0x3F)), 3;
    o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

// Decoded output is never longer than the escaped input, so one buffer of
// the input's length is enough.
static char *parse_string(parser *ps)
{
    if (ps->p >= ps->end || *ps->p != '"') return fail(ps, "expected a string"), NULL;
    ps->p++;
    const char *start = ps->p;
    while (ps->p < ps->end && *ps->p != '"') ps->p += (*ps->p == '\\' && ps->p + 1 < ps->end) ? 2 : 1;
    if (ps->p >= ps->end) return fail(ps, "unterminated string"), NULL;
    size_t raw = (size_t)(ps->p - start);
    char *out = malloc(raw + 1), *o = out;
    if (!out) return fail(ps, "out of memory"), NULL;
    ps->p = start;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) { fail(ps, "control character in string"); break; }
        if (c != '\\') { *o++ = (char)c; continue; }
        char e = *ps->p++;
        unsigned cp;
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            if (hex4(ps, &cp)) break;
            if (cp >= 0xD800 && cp <= 0xDBFF) { // a surrogate pair: two escapes, 12 input bytes
                unsigned lo;
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') { fail(ps, "lone surrogate"); break; }
                ps->p += 2;
                if (hex4(ps, &lo)) break;
                if (lo < 0xDC00 || lo > 0xDFFF) { fail(ps, "bad surrogate pair"); break; }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) { fail(ps, "lone surrogate"); break; }
            if (cp == 0) { fail(ps, "NUL in string"); break; }
            o += put_utf8(o, cp);
            break;
        default: fail(ps, "bad escape"); break;
        }
        if (ps->failed) break;
    }
    if (ps->failed) return free(out), NULL;
    *o = '\0';
    ps->p++; // closing quote
    return out;
}

static void parse_number(parser *ps, xf_json *v)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-') ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') { fail(ps, "bad number"); return; }
    if (*ps->p == '0') ps->p++;
    else while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    v->is_integer = 1;
    if (ps->p < ps->end && *ps->p == '.') {
        v->is_integer = 0, ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') { fail(ps, "bad number"); return; }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        v->is_integer = 0, ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') { fail(ps, "bad number"); return; }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    size_t n = (size_t)(ps->p - s);
    if (n > 64) { fail(ps, "number too long"); return; }
    char buf[72];
    memcpy(buf, s, n);
    buf[n] = '\0';
    v->number = strtod(buf, NULL);
    if (v->is_integer) {
        errno = 0;
        v->integer = strtoll(buf, NULL, 10);
        if (errno == ERANGE) v->is_integer = 0; // too large to be a size or an offset
    }
}

static int literal(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) return fail(ps, "bad literal"), 0;
    ps->p += n;
    return 1;
}

static void parse_value(parser *ps, xf_json *v, int depth);

// An object (obj 1) or array at ps->p, its '{' or '[' not yet consumed.
static void parse_container(parser *ps, xf_json *v, int depth, int obj)
{
    v->type = obj ? XF_JSON_OBJECT : XF_JSON_ARRAY;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) { ps->p++; return; }
    size_t cap = 0;
    for (;;) {
        if (v->len == cap) {
            cap = cap ? 2 * cap : 8;
            xf_json *nc = realloc(v->child, cap * sizeof *nc);
            char **nk = obj ? realloc(v->key, cap * sizeof *nk) : NULL;
            if (!nc || (obj && !nk)) {
                if (nc) v->child = nc;
                if (nk) v->key = nk;
                fail(ps, "out of memory");
                return;
            }
            v->child = nc;
            if (obj) v->key = nk;
        }
        if (obj) {
            skip_ws(ps);
            char *k = parse_string(ps);
            if (!k) return;
            for (size_t i = 0; i < v->len; i++)
                if (!strcmp(v->key[i], k)) {
                    free(k);
                    fail(ps, "duplicate key");
                    return;
                }
            v->key[v->len] = k;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                memset(&v->child[v->len++], 0, sizeof *v->child); // keeps key and child paired
                fail(ps, "expected ':'");
                return;
            }
            ps->p++;
        }
        parse_value(ps, &v->child[v->len++], depth + 1);
        if (ps->failed) return;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) { ps->p++; return; }
        fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return;
    }
}

static void parse_value(parser *ps, xf_json *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > XF_JSON_MAX_DEPTH) { fail(ps, "nested too deeply"); return; }
    skip_ws(ps);
    if (ps->p >= ps->end) { fail(ps, "unexpected end"); return; }
    char c = *ps->p;
    if (c == '{' || c == '[') {
        parse_container(ps, v, depth, c == '{');
        return;
    }
    if (c == '"') {
        v->type = XF_JSON_STRING;
        v->string = parse_string(ps);
        return;
    }
    if (c == 't') { v->type = XF_JSON_BOOL, v->boolean = literal(ps, "true"); return; }
    if (c == 'f') { v->type = XF_JSON_BOOL, literal(ps, "false"); return; }
    if (c == 'n') { v->type = XF_JSON_NULL, literal(ps, "null"); return; }
    v->type = XF_JSON_NUMBER;
    parse_number(ps, v);
}

static void free_children(xf_json *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free_children(&v->child[i]);
        if (v->key) free(v->key[i]);
    }
    free(v->child);
    free(v->key);
    free(v->string);
}

xf_json *xf_json_parse(const char *text, size_t size, char *err, size_t err_size)
{
    parser ps = {text, text, text + size, err, err_size, 0};
    xf_json *root = calloc(1, sizeof *root);
    if (!root) return snprintf(err, err_size, "out of memory"), NULL;
    parse_value(&ps, root, 0);
    skip_ws(&ps);
    if (!ps.failed && ps.p != ps.end) fail(&ps, "trailing characters");
    if (ps.failed) {
        xf_json_free(root);
        return NULL;
    }
    return root;
}

void xf_json_free(xf_json *root)
{
    if (!root) return;
    free_children(root);
    free(root);
}

const xf_json *xf_json_get(const xf_json *obj, const char *key)
{
    if (!obj || obj->type != XF_JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->len; i++)
        if (!strcmp(obj->key[i], key)) return &obj->child[i];
    return NULL;
}

void xf_json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}
