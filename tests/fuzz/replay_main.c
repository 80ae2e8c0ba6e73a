/*
** replay_main.c — a main() for the fuzz targets without libFuzzer: runs
** LLVMFuzzerTestOneInput once on each file named, or on each file of each
** directory named (missing directories are skipped).  make fuzz-replay
** builds every target with it under ASan+UBSan and replays the seeds and
** the regression inputs, so CI checks them with any C compiler.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); return 1; }
  size_t cap = 4096, n = 0, got;
  uint8_t *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) { cap *= 2; buf = realloc(buf, cap); }
  }
  fclose(f);
  if (!buf) { fprintf(stderr, "%s: out of memory\n", path); return 1; }
  /* an exact-size copy, so ASan sees reads past the input's end */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) { free(buf); return 1; }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) { cap = cap ? cap * 2 : 64; names = realloc(names, cap * sizeof *names); }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    names[n] = malloc(len);
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    rc |= run_file(names[i]);
    (*count)++;
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int rc = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) rc |= run_dir(argv[i], &count);
    else { rc |= run_file(argv[i]); count++; }
  }
  printf("%s: %d inputs replayed\n", argv[0], count);
  return rc;
}
