#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "json.h"
#include "report.h"
#include "stages/stage.h"

const char *xf_rates_roof_name(const xf_row_rates *r)
{
    static const char *const read[XF_NLEVELS] = {"L1-read", "L2-read", "L3-read", "DRAM-read"};
    if (r->roof == XF_ROOF_FMA && r->arith == XF_ARITH_DOT) return "bf16-dot";
    if (r->roof == XF_ROOF_FMA && r->arith == XF_ARITH_AMX) return "bf16-amx";
    return r->read && r->roof < XF_NLEVELS ? read[r->roof] : xf_roof_name(r->roof);
}

void xf_case_describe(const xf_case *c, char *buf, size_t size)
{
    buf[0] = '\0';
    xf_stage_desc_of(c->stage)->describe(c, buf, size);
    if (c->dtype != XF_F32) xf_append(buf, size, " dtype=%s", xf_dtype_name(c->dtype));
}

void xf_case_options(const xf_case *c, char *buf, size_t size)
{
    buf[0] = '\0';
    xf_append(buf, size, "--stage %s --batch %d --heads %d --dk %d --seq-q %d --seq-k %d --seed %llu",
              xf_stage_name(c->stage), c->batch, c->heads, c->dk, c->seq_q, c->seq_k, (unsigned long long)c->seed);
    xf_stage_desc_of(c->stage)->options(c, buf, size);
    if (c->dtype != XF_F32) xf_append(buf, size, " --dtype %s", xf_dtype_name(c->dtype));
}

static const char HEADER[] =
    "stage,variant,batch,heads,dk,seq_q,seq_k,d_model,d_ff,layers,n,k,relu,pad,causal,"
    "threads,reps,median_ns,min_ns,spread_pct,prepare_ns,gflops,gbps,pct_peak,"
    "max_abs_err,max_rel_err,nmse,err_over_bound,passed,cpu,isa,compiler,cflags,commit,date,"
    "stage_ms,host,useful_gflops,useful_pct_peak,roof,composition,shape,tokens_per_s,ms_per_step,dtype,"
    "steal_pct,others_running,thread_cpu_pct,clock_ghz_before,clock_ghz_after,load1,contended,contended_why,"
    "attempts,set_aside_why,blas_core,dnnl_isa,xsmm_target,samples_ns\n";

FILE *xf_csv_open(const char *path, const char **why)
{
    // A file begun by another version (other columns) would get rows that
    // do not match its header: refused rather than silently mixed.
    FILE *old = fopen(path, "r");
    if (old) {
        char line[sizeof HEADER + 1] = "";
        int same = !fgets(line, sizeof line, old) || !strcmp(line, HEADER);
        fclose(old);
        if (!same) {
            *why = "its header has other columns (written by another xfbench version): use a new file";
            return NULL;
        }
    }
    FILE *f = fopen(path, "a");
    if (!f) {
        *why = "cannot open it for appending";
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    if (ftell(f) == 0) fputs(HEADER, f);
    return f;
}

static void csv_row(FILE *f, const xf_instance *in, const char *variant, const char *cflags,
                int threads, const xf_check_result *chk, const xf_timing *t, double prepare_ns,
                const xf_row_rates *rates, const xf_machine *m, const xf_exec *ex)
{
    const xf_case *c = &in->c;
    const unsigned columns = xf_stage_desc_of(c->stage)->csv_columns;
    const int nk = (columns & XF_CSV_NK) != 0;
    fprintf(f, "%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,", xf_stage_name(c->stage),
            variant, c->batch, c->heads, c->dk, c->seq_q, c->seq_k, xf_case_d_model(c), c->d_ff,
            columns & XF_CSV_LAYERS ? c->layers : 0, nk ? c->n : 0, nk ? c->k : 0,
            c->relu, xf_pad_name(c->pad), c->causal, threads);
    if (t) {
        fprintf(f, "%d,%.0f,%.0f,%.2f,%.0f,%.4f,%.4f,", t->reps, t->median_ns, t->min_ns,
                t->spread_pct, prepare_ns, in->flops / t->median_ns, in->bytes / t->median_ns);
        if (rates->pct_peak >= 0) fprintf(f, "%.2f", rates->pct_peak);
        fputc(',', f);
    } else {
        fputs(",,,,,,,,", f);
    }
    fprintf(f, "%.4g,%.4g,%.4g,%.4g,%d,\"%s\",\"%s\",\"%s\",\"%s\",%s,%s,", chk->max_abs,
            chk->max_rel, chk->nmse, chk->worst_ratio, chk->passed, m->cpu, m->isa, m->compiler,
            cflags, m->commit, m->date);
    // Compound stages: mean ms per pass in each primitive stage, e.g.
    // "linear=445.1;attention=94.8" (what the forward plot stacks).
    for (int s = 0, first = 1; ex && t && s < XF_FIRST_COMPOUND; s++)
        if (ex->stage_calls[s]) {
            fprintf(f, "%s%s=%.4f", first ? "" : ";", xf_stage_name((xf_stage)s), ex->stage_ns[s] / t->reps / 1e6);
            first = 0;
        }
    fprintf(f, ",%s,", m->host);
    if (t) {
        fprintf(f, "%.4f,", in->useful_flops / t->median_ns);
        if (rates->useful_pct_peak >= 0) fprintf(f, "%.2f", rates->useful_pct_peak);
        fprintf(f, ",%s", xf_rates_roof_name(rates));
    } else {
        fputs(",,", f);
    }
    // The stage's own one-line description of the shape (its descriptor),
    // so scripts need no per-stage knowledge to name a case.
    char shape[256];
    xf_case_describe(c, shape, sizeof shape);
    fprintf(f, ",%s,\"%s\",", rates->composition ? rates->composition : "", shape);
    // Decoding: tokens per second (batch x steps over the time) and the
    // mean time of a step (generate's includes its share of the encoder).
    if (t && in->tokens > 0) fprintf(f, "%.2f,%.4f", in->tokens / t->median_ns * 1e9, t->median_ns / in->steps / 1e6);
    else fputc(',', f);
    fprintf(f, ",%s,", xf_dtype_name(c->dtype));
    // The machine's state while it was timed (contention.h), and every
    // timed call in order: what compare's intervals are computed from.
    if (t) {
        const xf_contention *st = &t->state;
        fprintf(f, "%.2f,%d,%.2f,%.3f,%.3f,%.2f,%d,\"%s\",%d,\"%s\",", st->steal_pct, st->others_running,
                st->thread_cpu_pct, st->clock_before_ghz, st->clock_after_ghz, st->load1, st->contended, st->why,
                t->attempts, t->set_aside);
    } else {
        fputs(",,,,,,,,,,", f);
    }
    // How the peer libraries ran in this process (machine.h), on every row:
    // a blas row's speed means little without the core OpenBLAS chose.
    for (int p = 0; p < XF_NPEER_COLUMNS; p++) fprintf(f, "\"%s\",", m->peer[p]);
    for (int i = 0; t && i < t->reps; i++) fprintf(f, "%s%.0f", i ? ";" : "", t->samples[i]);
    fputc('\n', f);
}

// A field that reads whole as a finite number is written as one; quoted
// fields stay strings (cflags "-O3", a cpu named "7763").
static void json_value(FILE *j, const char *v, int quoted)
{
    char *end;
    double x = strtod(v, &end);
    if (!quoted && !*v) fputs("null", j);
    else if (!quoted && !*end && x == x && x - x == 0 && strncmp(v, "0x", 2) && strncmp(v, "0X", 2)) fputs(v, j);
    else xf_json_write_string(j, v);
}

// The row as one JSON object: every CSV column by name, samples_ns as an
// array of numbers.
static void jsonl_row(FILE *j, char *line)
{
    char head[sizeof HEADER], *names[XF_CSV_MAX_FIELDS], *v[XF_CSV_MAX_FIELDS];
    int quoted[XF_CSV_MAX_FIELDS];
    memcpy(head, HEADER, sizeof HEADER);
    head[strcspn(head, "\n")] = '\0';
    line[strcspn(line, "\n")] = '\0';
    const int nh = xf_csv_split(head, names, NULL), n = xf_csv_split(line, v, quoted);
    fputc('{', j);
    for (int i = 0; i < nh && i < n; i++) {
        fprintf(j, "%s\"%s\":", i ? "," : "", names[i]);
        // Names that may read as numbers (a commit of digits, a host "42").
        const int text = !strcmp(names[i], "commit") || !strcmp(names[i], "host") || !strcmp(names[i], "date");
        if (strcmp(names[i], "samples_ns")) {
            json_value(j, v[i], quoted[i] || text);
            continue;
        }
        fputc('[', j);
        for (const char *p = v[i]; *p; p += strcspn(p, ";"), p += *p == ';')
            fprintf(j, "%s%.*s", p == v[i] ? "" : ",", (int)strcspn(p, ";"), p);
        fputc(']', j);
    }
    fputs("}\n", j);
}

void xf_report_row(FILE *csv, FILE *jsonl, const xf_instance *in, const char *variant, const char *cflags,
                   int threads, const xf_check_result *chk, const xf_timing *t, double prepare_ns,
                   const xf_row_rates *rates, const xf_machine *m, const xf_exec *ex)
{
    char *line = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&line, &size);
    if (!mem) return;
    csv_row(mem, in, variant, cflags, threads, chk, t, prepare_ns, rates, m, ex);
    fclose(mem);
    // Flushed per case: a run killed later keeps every case it finished.
    if (csv) fputs(line, csv), fflush(csv);
    if (jsonl) jsonl_row(jsonl, line), fflush(jsonl);
    free(line);
}
