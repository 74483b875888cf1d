/* results_file.c: the results file of a benchmark: created whole by rename, appended one fsync'd line per run, repaired and re-read on resume. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

/*
 * Why whole lines with one write() each, fsync'd: whatever interrupts the
 * benchmark (Ctrl-C, a kill, a crash), the file holds a header and complete
 * records, plus at worst one line cut short, which resume removes. A new file
 * is written under a temporary name and renamed, so an old results file is
 * never left half-replaced.
 */

static char *header_line(cpk_bench_format fmt)
{
  if (fmt == CPK_BENCH_JSONL) {
    char *h = cpk_bench_jsonl_header();
    char *line = h ? malloc(strlen(h) + 2) : NULL;
    if (line) sprintf(line, "%s\n", h);
    free(h);
    return line;
  }
  const char *h = cpk_bench_csv_header();
  char *line = malloc(strlen(h) + 2);
  if (line) sprintf(line, "%s\n", h);
  return line;
}

static int write_all(int fd, const char *s, size_t len)
{
  while (len > 0) {
    ssize_t k = write(fd, s, len);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    s += k, len -= (size_t)k;
  }
  return 0;
}

/* fsync, except that a pipe or a device has nothing to sync (EINVAL): not an error. */
static int sync_fd(int fd)
{
  return fsync(fd) == 0 || errno == EINVAL ? 0 : -1;
}

/* 1 when path exists and is not a plain regular file: a symbolic link, a device, a pipe. */
static int is_special(const char *path)
{
  struct stat st;
  return lstat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/*
 * A link, a device or a pipe (-o /dev/stdout, /dev/full) is written in place:
 * renaming a temporary file over it would replace it with a plain file (as
 * root, /dev/full itself) and report success. The descriptor stays open for the
 * records (*fd): a reader of a pipe takes the first close for the end of the
 * file, and a second open would then wait for a reader forever.
 */
static int create_special(const char *path, const char *head, int *fd, cpk_error *err)
{
  *fd = open(path, O_WRONLY | O_TRUNC);
  int rc = *fd < 0 || write_all(*fd, head, strlen(head)) || sync_fd(*fd) ? CPK_EIO : CPK_OK;
  if (rc) {
    cpk_error_set(err, rc, "%s: cannot write: %s", path, strerror(errno));
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  return rc;
}

/* A new results file with its header; *fd is the open descriptor of a special file, else -1. */
static int create_file(const char *path, cpk_bench_format fmt, int *fd, cpk_error *err)
{
  char *tmp = malloc(strlen(path) + 32), *head = header_line(fmt);
  int rc = tmp && head ? CPK_OK : CPK_ENOMEM;
  *fd = -1;
  if (!rc && is_special(path)) {
    rc = create_special(path, head, fd, err);
    free(tmp);
    free(head);
    return rc;
  }
  if (!rc) {
    sprintf(tmp, "%s.tmp%ld", path, (long)getpid());
    int tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (tfd < 0 || write_all(tfd, head, strlen(head)) || sync_fd(tfd)) rc = CPK_EIO;
    if (tfd >= 0 && close(tfd)) rc = CPK_EIO;
    if (!rc && rename(tmp, path)) rc = CPK_EIO;
    if (rc) unlink(tmp);
  }
  if (rc == CPK_EIO) cpk_error_set(err, rc, "%s: cannot write: %s", path, strerror(errno));
  free(tmp);
  free(head);
  return rc;
}

/* The whole file in memory, NUL-terminated. */
static int slurp(const char *path, char **text, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0;
  if (!f) return errno == ENOENT ? CPK_ENOTFOUND : CPK_EIO;
  for (;;) {
    if (cap - n < 4096) {
      char *grown = realloc(buf, cap = cap ? 2 * cap : 65536);
      if (!grown) break;
      buf = grown;
    }
    size_t k = fread(buf + n, 1, cap - n - 1, f);
    n += k;
    if (k == 0) break;
  }
  int rc = ferror(f) ? CPK_EIO : (buf && cap - n >= 1 ? CPK_OK : CPK_ENOMEM);
  fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *text = buf, *len = n;
  return CPK_OK;
}

/* Parse every complete line after the header; `text` is modified. */
static int parse_lines(const char *path, char *text, cpk_bench_format fmt, cpk_bench_record **out,
                       size_t *count, cpk_error *err)
{
  size_t cap = 0, m = 0, lineno = 1;
  cpk_bench_record *recs = NULL;
  char *line = strchr(text, '\n') + 1;
  for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
    *nl = '\0';
    lineno++;
    if (m == cap) {
      cpk_bench_record *grown = realloc(recs, (cap = cap ? 2 * cap : 256) * sizeof *recs);
      if (!grown) {
        free(recs);
        return cpk_error_set(err, CPK_ENOMEM, "%s: out of memory", path);
      }
      recs = grown;
    }
    if (cpk_bench_record_parse(line, fmt, &recs[m])) {
      free(recs);
      return cpk_error_set(err, CPK_EPARSE, "%s:%zu: not a benchmark record", path, lineno);
    }
    m++;
  }
  *out = recs, *count = m;
  return CPK_OK;
}

static int header_format(const char *text, cpk_bench_format *fmt)
{
  for (int f = CPK_BENCH_CSV; f <= CPK_BENCH_JSONL; f++) {
    char *head = header_line((cpk_bench_format)f);
    int same = head && strncmp(text, head, strlen(head)) == 0;
    free(head);
    if (same) {
      *fmt = (cpk_bench_format)f;
      return CPK_OK;
    }
  }
  return CPK_EPARSE;
}

/* Read a results file; *cut receives the length of its complete lines. */
static int read_file(const char *path, cpk_bench_format *fmt, cpk_bench_record **out, size_t *count,
                     size_t *cut, cpk_error *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = slurp(path, &text, &len);
  if (!rc && len == 0) rc = CPK_ENOTFOUND; /* as if missing: nothing was ever recorded */
  if (rc == CPK_ENOTFOUND) {
    free(text);
    return rc;
  }
  if (rc) return cpk_error_set(err, rc, "%s: cannot read: %s", path, cpk_strerror(rc));
  if (strlen(text) != len || header_format(text, fmt)) {
    free(text);
    return cpk_error_set(err, CPK_EPARSE,
                         "%s: not a cpkit bench results file of this version (header differs)",
                         path);
  }
  char *last = strrchr(text, '\n');
  *cut = (size_t)(last - text) + 1;
  text[*cut] = '\0'; /* a line cut short by an interruption is dropped */
  rc = parse_lines(path, text, *fmt, out, count, err);
  free(text);
  return rc;
}

int cpk_bench_read_records(const char *path, cpk_bench_record **out, size_t *count, cpk_error *err)
{
  cpk_bench_format fmt;
  size_t cut;
  *out = NULL, *count = 0;
  int rc = read_file(path, &fmt, out, count, &cut, err);
  return rc == CPK_ENOTFOUND ? cpk_error_set(err, rc, "%s: missing or empty", path) : rc;
}

static int open_resume(const char *path, cpk_bench_format fmt, cpk_bench_record **old, size_t *nold,
                       cpk_error *err)
{
  cpk_bench_format found;
  cpk_bench_record *recs = NULL;
  size_t count = 0, cut = 0;
  struct stat st; /* reading /dev/full or a pipe would never end or never come back */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return cpk_error_set(err, CPK_EINVAL, "%s: --resume needs a regular file", path);
  int rc = read_file(path, &found, &recs, &count, &cut, err);
  int none; /* the path does not exist: create_file makes a regular file, no descriptor */
  if (rc == CPK_ENOTFOUND) return create_file(path, fmt, &none, err);
  if (!rc && found != fmt)
    rc = cpk_error_set(err, CPK_EINVAL, "%s: holds %s records; resume it in the same format", path,
                       found == CPK_BENCH_CSV ? "CSV" : "JSON");
  if (!rc && truncate(path, (off_t)cut))
    rc = cpk_error_set(err, CPK_EIO, "%s: cannot remove a cut line: %s", path, strerror(errno));
  if (rc) {
    free(recs);
    return rc;
  }
  if (old)
    *old = recs, *nold = count;
  else
    free(recs);
  return CPK_OK;
}

int cpk_bench_writer_open(cpk_bench_writer *w, const char *path, cpk_bench_format fmt, int resume,
                          cpk_bench_record **old, size_t *nold, cpk_error *err)
{
  memset(w, 0, sizeof *w);
  w->fd = -1;
  w->fmt = fmt;
  if (old) *old = NULL, *nold = 0;
  cpk_error_clear(err);
  int special_fd = -1;
  int rc = resume ? open_resume(path, fmt, old, nold, err) : create_file(path, fmt, &special_fd, err);
  if (rc) return rc;
  w->path = strdup(path);
  w->fd = special_fd >= 0 ? special_fd : open(path, O_WRONLY | O_APPEND);
  if (!w->path || w->fd < 0) {
    cpk_bench_writer_close(w);
    if (old) {
      free(*old);
      *old = NULL, *nold = 0;
    }
    return cpk_error_set(err, CPK_EIO, "%s: cannot open for appending", path);
  }
  return CPK_OK;
}

int cpk_bench_writer_append(cpk_bench_writer *w, const cpk_bench_record *rec, cpk_error *err)
{
  char *line = cpk_bench_record_line(rec, w->fmt);
  if (!line) return cpk_error_set(err, CPK_ENOMEM, "out of memory");
  int bad = write_all(w->fd, line, strlen(line)) || sync_fd(w->fd);
  free(line);
  return bad ? cpk_error_set(err, CPK_EIO, "%s: cannot append: %s", w->path, strerror(errno))
             : CPK_OK;
}

void cpk_bench_writer_close(cpk_bench_writer *w)
{
  if (w->fd >= 0) close(w->fd);
  free(w->path);
  w->fd = -1;
  w->path = NULL;
}
