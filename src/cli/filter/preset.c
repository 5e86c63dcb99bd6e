/*
 * preset.c - named filter chains in INI files (parsed with inih): one section
 * per stage, stages in file order. Found by name on the search path:
 * $GFIR_PRESET_PATH (colon-separated), the user's config directory, the source
 * tree, the share directory beside the executable, the configured install's
 * share directory; or given as a path to an .ini file.
 */
#include "filter/preset.h"
#include "filter/routespec.h"
#include "message.h"

#include <dirent.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECTIONS 16
#define NAME_LEN 64
#define PATH_LEN 4096
#define DEFAULT_ATTENUATION_DB 80.0

enum {
    HAS_TYPE = 1 << 0,
    HAS_CUTOFF = 1 << 1,
    HAS_LOW = 1 << 2,
    HAS_HIGH = 1 << 3,
    HAS_TRANSITION = 1 << 4,
    HAS_ATTENUATION = 1 << 5,
    HAS_FILE = 1 << 6,
    HAS_OUT = 1 << 7,
    HAS_INPUTS = 1 << 8
};

/* A route section's outputs and inputs, out1 .. out1024 and in1 .. in1024. */
#define MAX_ROUTE_CHANNELS GFIR_MAX_CHANNELS

typedef struct section {
    char name[NAME_LEN];
    char description[256];
    char file[PATH_LEN];
    stage_kind kind;
    gfir_filter_type type;
    double cutoff_hz, low_hz, high_hz, transition_hz, attenuation_db;
    char *outs[MAX_ROUTE_CHANNELS];     /* a route's lines, by output; NULL where none */
    unsigned inputs;                    /* a route's inputs = N */
    unsigned has;
} section;

typedef struct preset_file {
    const char *path;
    section sections[MAX_SECTIONS];
    size_t nsections;
    char error[256];
} preset_file;

static const struct {
    const char *name;
    stage_kind kind;
    gfir_filter_type type;
} types[] = {
    {"lowpass", STAGE_DESIGN, GFIR_LOWPASS},   {"highpass", STAGE_DESIGN, GFIR_HIGHPASS},
    {"bandpass", STAGE_DESIGN, GFIR_BANDPASS}, {"bandstop", STAGE_DESIGN, GFIR_BANDSTOP},
    {"taps", STAGE_TAPS, GFIR_LOWPASS},        {"ir", STAGE_IR, GFIR_LOWPASS},
    {"route", STAGE_ROUTE, GFIR_LOWPASS},
};

static void section_free(section *s)
{
    for (int i = 0; i < MAX_ROUTE_CHANNELS; i++) {
        free(s->outs[i]);
        s->outs[i] = NULL;
    }
}

/* The keys a section of this type uses (beyond type and description). */
static unsigned keys_for(const section *s)
{
    if (s->kind == STAGE_ROUTE)
        return HAS_OUT | HAS_INPUTS;
    if (s->kind != STAGE_DESIGN)
        return HAS_FILE;
    if (s->type == GFIR_LOWPASS || s->type == GFIR_HIGHPASS)
        return HAS_CUTOFF | HAS_TRANSITION | HAS_ATTENUATION;
    return HAS_LOW | HAS_HIGH | HAS_TRANSITION | HAS_ATTENUATION;
}

static int parse_positive(const char *value, double *out)
{
    char *end;
    double v = strtod(value, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == value || *end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

/* Sets one key; on failure writes why into err and returns -1. */
static int set_key(section *s, const char *key, const char *value, char *err, size_t errlen)
{
    static const struct {
        const char *key;
        unsigned flag;
        size_t offset;
    } numbers[] = {
        {"cutoff_hz", HAS_CUTOFF, offsetof(section, cutoff_hz)},
        {"low_hz", HAS_LOW, offsetof(section, low_hz)},
        {"high_hz", HAS_HIGH, offsetof(section, high_hz)},
        {"transition_hz", HAS_TRANSITION, offsetof(section, transition_hz)},
        {"attenuation_db", HAS_ATTENUATION, offsetof(section, attenuation_db)},
    };
    if (!strcmp(key, "description")) {
        snprintf(s->description, sizeof s->description, "%s", value);
        return 0;
    }
    if (!strcmp(key, "file")) {
        snprintf(s->file, sizeof s->file, "%s", value);
        s->has |= HAS_FILE;
        return 0;
    }
    if (!strncmp(key, "out", 3) && key[3] >= '1' && key[3] <= '9') {
        char *end, *line;
        unsigned long k = strtoul(key + 3, &end, 10);
        if (*end || k > MAX_ROUTE_CHANNELS) {
            snprintf(err, errlen, "%s: outputs are out1 to out%d", key, MAX_ROUTE_CHANNELS);
            return -1;
        }
        /* an indented line goes on with the one before (inih gives it the same
         * key), as does out<k> again: their terms add up */
        const size_t had = s->outs[k - 1] ? strlen(s->outs[k - 1]) + 1 : 0;
        if (!(line = realloc(s->outs[k - 1], had + strlen(value) + 1))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (had)
            line[had - 1] = ' ';
        strcpy(line + had, value);
        s->outs[k - 1] = line;
        s->has |= HAS_OUT;
        return 0;
    }
    if (!strcmp(key, "inputs")) {
        char *end;
        unsigned long n = strtoul(value, &end, 10);
        if (end == value || *end || n == 0 || n > MAX_ROUTE_CHANNELS) {
            snprintf(err, errlen, "inputs = %s is not a count of channels (1 to %d)", value,
                     MAX_ROUTE_CHANNELS);
            return -1;
        }
        s->inputs = (unsigned)n;
        s->has |= HAS_INPUTS;
        return 0;
    }
    if (!strcmp(key, "type")) {
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
            if (!strcmp(value, types[i].name)) {
                s->kind = types[i].kind;
                s->type = types[i].type;
                s->has |= HAS_TYPE;
                return 0;
            }
        }
        snprintf(err, errlen, "type = %s is not one of lowpass, highpass, bandpass, bandstop, "
                 "taps, ir, route", value);
        return -1;
    }
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        if (strcmp(key, numbers[i].key))
            continue;
        if (parse_positive(value, (double *)((char *)s + numbers[i].offset))) {
            snprintf(err, errlen, "%s = %s is not a positive number", key, value);
            return -1;
        }
        s->has |= numbers[i].flag;
        return 0;
    }
    snprintf(err, errlen, "unknown key '%s' (known: description, type, cutoff_hz, low_hz, "
             "high_hz, transition_hz, attenuation_db, file; in a [route]: out1, out2, ..., "
             "inputs)", key);
    return -1;
}

static int on_key(void *user, const char *sect, const char *key, const char *value)
{
    preset_file *p = user;
    section *s = p->nsections ? &p->sections[p->nsections - 1] : NULL;
    if (!sect[0]) {
        snprintf(p->error, sizeof p->error, "'%s' is outside any [section]", key);
        return 0;
    }
    if (!s || strcmp(s->name, sect)) {
        if (p->nsections == MAX_SECTIONS) {
            snprintf(p->error, sizeof p->error, "more than %d sections", MAX_SECTIONS);
            return 0;
        }
        s = &p->sections[p->nsections++];
        memset(s, 0, sizeof *s);
        snprintf(s->name, sizeof s->name, "%s", sect);
        /* [route] needs no type = route */
        if (!strcmp(sect, "route")) {
            s->kind = STAGE_ROUTE;
            s->has |= HAS_TYPE;
        }
    }
    return set_key(s, key, value, p->error, sizeof p->error) == 0;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* PREFIX/share/gfir/presets for the PREFIX/bin/gfir running now, so an
 * install moved elsewhere (or made with cmake --install --prefix) still finds
 * its presets. 1 when found, else 0. */
static int exe_share_dir(char *dir)
{
    char exe[PATH_LEN];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    if (len <= 0)
        return 0;
    exe[len] = '\0';
    slash = strrchr(exe, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return snprintf(dir, PATH_LEN, "%s/../share/gfir/presets", exe) < PATH_LEN;
}

/* Called with each directory of the search path; nonzero stops the walk. */
typedef int (*dir_visitor)(const char *dir, void *ctx);

/* Walks the search path in order, one directory at a time, so
 * $GFIR_PRESET_PATH may hold any number of them; returns what stopped it, or 0. */
static int each_dir(dir_visitor visit, void *ctx)
{
    char dir[PATH_LEN];
    const char *env = getenv("GFIR_PRESET_PATH");
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int rc;
    for (const char *p = env ? env : ""; *p;) {
        const size_t len = strcspn(p, ":");
        if (len && len < PATH_LEN) {
            snprintf(dir, sizeof dir, "%.*s", (int)len, p);
            if ((rc = visit(dir, ctx)))
                return rc;
        }
        p += len + (p[len] == ':');
    }
    if ((xdg && xdg[0] && snprintf(dir, sizeof dir, "%s/gfir/presets", xdg) < PATH_LEN) ||
        (!(xdg && xdg[0]) && home && home[0] &&
         snprintf(dir, sizeof dir, "%s/.config/gfir/presets", home) < PATH_LEN))
        if ((rc = visit(dir, ctx)))
            return rc;
    if ((rc = visit(GFIR_SOURCE_PRESET_DIR, ctx)))
        return rc;
    if (exe_share_dir(dir) && (rc = visit(dir, ctx)))
        return rc;
    return visit(GFIR_INSTALL_PRESET_DIR, ctx);
}

typedef struct preset_search {
    const char *name;
    char *path;
} preset_search;

static int found_in(const char *dir, void *ctx)
{
    preset_search *s = ctx;
    return snprintf(s->path, PATH_LEN, "%s/%s.ini", dir, s->name) < PATH_LEN && is_file(s->path);
}

static int find_preset(const char *name, char *path)
{
    preset_search search = {name, path};
    size_t len = strlen(name);
    if (strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".ini"))) {
        if (!is_file(name))
            return cli_error("preset file '%s' does not exist", name);
        snprintf(path, PATH_LEN, "%s", name);
        return 0;
    }
    if (each_dir(found_in, &search))
        return 0;
    return cli_error("unknown preset '%s' (gfir --list-presets shows the presets there are)",
                     name);
}

/* The first line up to `upto` that inih cannot hold whole (it reads the
 * rest as a line of its own), or 0. */
static int overlong_line(const char *path, int upto)
{
    FILE *fp = fopen(path, "r");
    int line = 1, len = 0, c, found = 0;
    if (!fp)
        return 0;
    while (!found && line <= upto && (c = getc(fp)) != EOF) {
        if (c == '\n') {
            line++;
            len = 0;
        } else if (++len >= INI_MAX_LINE - 1) {
            found = line;
        }
    }
    fclose(fp);
    return found;
}

static int parse_file(const char *path, preset_file *p)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    int line = ini_parse(path, on_key, p), longer;
    if (line < 0)
        return cli_error("cannot read preset file '%s'", path);
    if (line > 0 && (longer = overlong_line(path, line)))
        return cli_error("preset file '%s' line %d is longer than %d characters; go on on the "
                         "next line, indented (a [route] line goes on with its + or -)", path,
                         longer, INI_MAX_LINE - 2);
    if (line > 0)
        return cli_error("preset file '%s' line %d: %s", path, line,
                         p->error[0] ? p->error : "not a [section] or key = value line");
    if (p->nsections == 0)
        return cli_error("preset file '%s' has no [section]", path);
    return 0;
}

/* The flag a key sets; 0 for keys every section has (type, description). */
static unsigned key_flag(const char *key)
{
    section probe;
    char err[256];
    memset(&probe, 0, sizeof probe);
    unsigned flag;
    if (set_key(&probe, key, strcmp(key, "type") ? "1" : "lowpass", err, sizeof err))
        return 0;
    flag = probe.has & ~(unsigned)HAS_TYPE;
    section_free(&probe);
    return flag;
}

/* section.key=value sets one section; key=value every section that uses key. */
static int apply_overrides(const char *name, preset_file *p, const preset_override *ov,
                           size_t nov)
{
    char err[256];
    for (size_t i = 0; i < nov; i++) {
        const unsigned flag = key_flag(ov[i].key);
        int hits = 0;
        for (size_t j = 0; j < p->nsections; j++) {
            section *s = &p->sections[j];
            if (ov[i].section ? strcmp(ov[i].section, s->name) != 0
                              : flag && !(keys_for(s) & flag))
                continue;
            /* an override replaces a route's line, where the file's own
             * lines for one output add up */
            if (flag == HAS_OUT) {
                const unsigned long k = strtoul(ov[i].key + 3, NULL, 10);
                free(s->outs[k - 1]);
                s->outs[k - 1] = NULL;
            }
            if (set_key(s, ov[i].key, ov[i].value, err, sizeof err))
                return cli_error("preset '%s': %s", name, err);
            hits++;
        }
        if (!hits)
            return cli_error("preset '%s': %s%s%s matches no stage of it", name,
                             ov[i].section ? ov[i].section : "", ov[i].section ? "." : "",
                             ov[i].key);
    }
    return 0;
}

static int check_section(const char *path, const section *s)
{
    static const struct {
        unsigned flag;
        const char *key;
    } names[] = {{HAS_CUTOFF, "cutoff_hz"},         {HAS_LOW, "low_hz"},
                 {HAS_HIGH, "high_hz"},             {HAS_TRANSITION, "transition_hz"},
                 {HAS_FILE, "file"},                {HAS_OUT, "out1"},
                 {HAS_INPUTS, "inputs"}};
    if (!(s->has & HAS_TYPE))
        return cli_error("preset file '%s' section [%s] has no type", path, s->name);
    const unsigned want = keys_for(s) & ~(unsigned)(HAS_ATTENUATION | HAS_INPUTS);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if ((want & names[i].flag) && !(s->has & names[i].flag))
            return cli_error("preset file '%s' section [%s] needs %s", path, s->name,
                             names[i].key);
        if (!(keys_for(s) & names[i].flag) && (s->has & names[i].flag))
            return cli_error("preset file '%s' section [%s]: %s does not apply to this type",
                             path, s->name, names[i].key);
    }
    for (int k = 1; s->kind == STAGE_ROUTE && k < MAX_ROUTE_CHANNELS; k++)
        if (s->outs[k] && !s->outs[k - 1])
            return cli_error("preset file '%s' section [%s] has out%d but no out%d; give "
                             "every output a line", path, s->name, k + 1, k);
    if ((want & HAS_HIGH) && s->high_hz <= s->low_hz)
        return cli_error("preset file '%s' section [%s]: low_hz = %g must be below "
                         "high_hz = %g", path, s->name, s->low_hz, s->high_hz);
    return 0;
}

/* A stage file named in a preset is relative to the preset's directory. */
static char *stage_path(const char *ini_path, const char *file)
{
    const char *slash = strrchr(ini_path, '/');
    size_t dirlen = slash ? (size_t)(slash - ini_path) + 1 : 0;
    char *out;
    if (file[0] == '/' || !dirlen)
        return strdup(file);
    out = malloc(dirlen + strlen(file) + 1);
    if (out) {
        memcpy(out, ini_path, dirlen);
        strcpy(out + dirlen, file);
    }
    return out;
}

static char *in_preset_dir(const char *file, void *ini_path)
{
    return stage_path(ini_path, file);
}

/* The terms of every out line, their files beside the preset. */
static int add_route(cli_stage *st, const char *name, const char *path, const section *s)
{
    char where[192];
    unsigned inputs = 0;
    for (int k = 0; k < MAX_ROUTE_CHANNELS && s->outs[k]; k++) {
        snprintf(where, sizeof where, "preset '%s' [%s] out%d", name, s->name, k + 1);
        if (routespec_parse(where, s->outs[k], (unsigned)k, &st->terms, &st->nterms))
            return 1;
        st->route_outputs = (unsigned)k + 1;
    }
    for (size_t t = 0; t < st->nterms; t++) {
        route_term *term = &st->terms[t];
        if (s->inputs && term->input >= s->inputs)
            return cli_error("preset '%s' [%s]: in%u, but inputs = %u", name, s->name,
                             term->input + 1, s->inputs);
        inputs = term->input + 1 > inputs ? term->input + 1 : inputs;
        if (term->file) {
            char *found = stage_path(path, term->file);
            if (!found)
                return cli_error("out of memory");
            free(term->file);
            term->file = found;
        }
    }
    st->route_inputs = s->inputs ? s->inputs : inputs;
    return 0;
}

static int add_stage(stage_list *list, const char *name, const char *path, const section *s,
                     int single)
{
    cli_stage *st = stage_append(list);
    size_t len = strlen(name) + strlen(s->name) + 2;
    if (!st)
        return cli_error("out of memory");
    st->kind = s->kind;
    st->type = s->type;
    st->cutoff1_hz = (s->has & HAS_CUTOFF) ? s->cutoff_hz : s->low_hz;
    st->cutoff2_hz = s->high_hz;
    st->transition_hz = s->transition_hz;
    st->attenuation_db = (s->has & HAS_ATTENUATION) ? s->attenuation_db : DEFAULT_ATTENUATION_DB;
    st->name = malloc(len);
    st->description = s->description[0] ? strdup(s->description) : NULL;
    st->path = (s->has & HAS_FILE) ? stage_path(path, s->file) : NULL;
    st->preset_path = strdup(path);
    if (!st->name || (s->description[0] && !st->description) ||
        ((s->has & HAS_FILE) && !st->path) || !st->preset_path) {
        stage_drop_last(list);
        return cli_error("out of memory");
    }
    if (single && !strcmp(s->name, name))
        snprintf(st->name, len, "%s", name);
    else
        snprintf(st->name, len, "%s.%s", name, s->name);
    if ((s->kind == STAGE_ROUTE && add_route(st, name, path, s)) ||
        (s->kind == STAGE_IR && stage_set_files(st, s->file, in_preset_dir, (void *)path))) {
        stage_drop_last(list);
        return 1;
    }
    return 0;
}

int preset_load(stage_list *list, const char *name, const preset_override *ov, size_t nov)
{
    char path[PATH_LEN];
    preset_file *p = malloc(sizeof *p);
    int rc = 1;
    if (!p)
        return cli_error("out of memory");
    if (find_preset(name, path) || parse_file(path, p) || apply_overrides(name, p, ov, nov))
        goto done;
    for (size_t i = 0; i < p->nsections; i++)
        if (check_section(path, &p->sections[i]))
            goto done;
    for (size_t i = 0; i < p->nsections; i++)
        if (add_stage(list, name, path, &p->sections[i], p->nsections == 1))
            goto done;
    rc = 0;
done:
    for (size_t i = 0; i < p->nsections; i++)
        section_free(&p->sections[i]);
    free(p);
    return rc;
}

typedef struct beside_search {
    const char *name;
    char *path;
    size_t len;
} beside_search;

static int beside_in(const char *dir, void *ctx)
{
    beside_search *s = ctx;
    return (size_t)snprintf(s->path, s->len, "%s/%s", dir, s->name) < s->len && is_file(s->path);
}

int preset_find_beside(const char *name, char *path, size_t len)
{
    beside_search search = {name, path, len};
    if (strchr(name, '/') || is_file(name))
        return 0;
    return each_dir(beside_in, &search);
}

static int on_description(void *user, const char *sect, const char *key, const char *value)
{
    (void)sect;
    char *desc = user;
    if (!desc[0] && !strcmp(key, "description"))
        snprintf(desc, 256, "%s", value);
    return 1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#define MAX_LISTED 512

typedef struct preset_names {
    char *names[MAX_LISTED];
    size_t n;
} preset_names;

static int list_dir(const char *dir_path, void *ctx)
{
    preset_names *list = ctx;
    DIR *dir = opendir(dir_path);
    struct dirent *e;
    if (!dir)
        return 0;
    while ((e = readdir(dir)) && list->n < MAX_LISTED) {
        size_t len = strlen(e->d_name), j;
        if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") || e->d_name[0] == '.')
            continue;
        for (j = 0; j < list->n; j++)
            if (!strncmp(list->names[j], e->d_name, len - 4) && !list->names[j][len - 4])
                break;
        if (j < list->n)
            continue;
        list->names[list->n] = strndup(e->d_name, len - 4);
        if (list->names[list->n])
            list->n++;
    }
    closedir(dir);
    return 0;
}

/* Each preset once (the first on the search path wins), sorted by name. */
int preset_list(void)
{
    char path[PATH_LEN], desc[256];
    preset_names list;

    list.n = 0;
    each_dir(list_dir, &list);
    qsort(list.names, list.n, sizeof list.names[0], cmp_names);
    for (size_t i = 0; i < list.n; i++) {
        desc[0] = '\0';
        if (find_preset(list.names[i], path) == 0)
            ini_parse(path, on_description, desc);
        printf("%-12s %s\n", list.names[i], desc[0] ? desc : "(no description)");
        free(list.names[i]);
    }
    if (list.n == 0)
        return cli_error("no presets found; set GFIR_PRESET_PATH to a directory of .ini files");
    return 0;
}
