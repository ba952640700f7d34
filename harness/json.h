// A small strict JSON parser (RFC 8259) for safetensors headers, written to
// be fed hostile input: bounded depth, every length checked, no recursion
// past XF_JSON_MAX_DEPTH, one allocation arena freed at once.
#ifndef XF_JSON_H
#define XF_JSON_H

#include <stddef.h>
#include <stdio.h>

typedef enum { XF_JSON_NULL, XF_JSON_BOOL, XF_JSON_NUMBER, XF_JSON_STRING, XF_JSON_ARRAY, XF_JSON_OBJECT } xf_json_type;

typedef struct xf_json xf_json;
struct xf_json {
    xf_json_type type;
    int boolean;
    double number;       // as parsed (exact for integers up to 2^53)
    int is_integer;      // the text was an integer with no fraction or exponent
    long long integer;   // its value, when is_integer and it fits
    char *string;        // NUL-terminated; strings with an embedded NUL are rejected
    size_t len;          // array or object: number of children
    xf_json *child;      // array or object: children in order
    char **key;          // object: the key of each child
};

enum { XF_JSON_MAX_DEPTH = 16 };

// Parses text[0..size); NULL and a message in err on any error. The tree is
// freed with xf_json_free.
xf_json *xf_json_parse(const char *text, size_t size, char *err, size_t err_size);
void xf_json_free(xf_json *root);
// An object's member by key, or NULL.
const xf_json *xf_json_get(const xf_json *obj, const char *key);
// Writes s as a JSON string: quotes, backslashes and control characters
// escaped.
void xf_json_write_string(FILE *f, const char *s);

#endif
