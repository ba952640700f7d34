// The CSV dialect xfbench writes (report.c) and reads back (compare.c,
// the --jsonl writer): fields separated by ',', a field with separators in
// double quotes, no quote escapes inside (report.c never writes a '"' in a
// field). Lines may be long: samples_ns holds every timed repetition.
#ifndef XF_CSV_H
#define XF_CSV_H

enum { XF_CSV_MAX_FIELDS = 96 };

// Splits one line (no newline) in place: field[i] points into line and
// quoted[i] (if not NULL) says whether it was in quotes. Returns the number
// of fields, -1 if malformed or more than XF_CSV_MAX_FIELDS.
int xf_csv_split(char *line, char **field, int *quoted);

#endif
