#include <string.h>

#include "csv.h"

int xf_csv_split(char *line, char **field, int *quoted)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == XF_CSV_MAX_FIELDS) return -1;
        if (quoted) quoted[n] = *p == '"';
        if (*p == '"') {
            field[n++] = ++p;
            p = strchr(p, '"');
            if (!p) return -1;
            *p++ = '\0';
            if (*p != ',' && *p != '\0') return -1;
        } else {
            field[n++] = p;
            p += strcspn(p, ",");
        }
        if (*p != ',') break;
        *p++ = '\0';
    }
    return n;
}
