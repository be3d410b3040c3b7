/* SPDX-License-Identifier: MIT */
/* examples/original/comp.c moved to fastout: an include, and each stdio
 * call to standard output becomes fastout's call of the same name --
 * puts -> fastout_puts, putchar -> fastout_putchar, printf -> fastout_printf,
 * fputs(s, stdout) -> fastout_fputs(s, fastout_stdout()), fflush(stdout) ->
 * fastout_flush(fastout_stdout()) -- and the check at the end reads the
 * sticky error. The per-record flush stays: a reader downstream still sees
 * each record at once, and each flush is one write(), as stdio's.
 *
 *   comp < seqs.fa    prints: name, length, and the number of A, C, G, T and
 *                     other letters (upper or lower case) of each sequence */
#include <fastout/c_api.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A record: its name (the header up to the first white space, at most 255
 * bytes) and its counts of A, C, G, T and anything else. */
struct record {
  char name[256];
  unsigned long length;
  unsigned long bases[5];
};

static void print_record(const struct record* r) {
  int i;
  fastout_fputs(r->name, fastout_stdout());
  fastout_printf("\t%lu", r->length);
  for (i = 0; i < 5; ++i) fastout_printf("\t%lu", r->bases[i]);
  fastout_putchar('\n');
  fastout_flush(fastout_stdout()); /* the record is done: send it */
}

/* Reads a header line after its '>' into r->name and skips the rest. */
static void read_header(struct record* r) {
  size_t n = 0;
  int c;
  memset(r, 0, sizeof *r);
  while ((c = getchar()) != EOF && c != '\n' && !isspace(c))
    if (n + 1 < sizeof r->name) r->name[n++] = (char)c;
  while (c != EOF && c != '\n') c = getchar();
}

int main(void) {
  static const char letters[] = "ACGT";
  struct record r;
  int c, in_record = 0, line_start = 1, error;
  unsigned long records = 0;
  fastout_puts("#name\tlength\tA\tC\tG\tT\tother");
  while ((c = getchar()) != EOF) {
    if (line_start && c == '>') {
      if (in_record) {
        print_record(&r);
        ++records;
      }
      read_header(&r);
      in_record = 1;
      continue; /* read_header() ate the newline */
    }
    line_start = c == '\n';
    if (!in_record || c == '\n' || c == '\r') continue;
    {
      const char* found = strchr(letters, toupper(c));
      ++r.bases[found != NULL && *found != '\0' ? found - letters : 4];
      ++r.length;
    }
  }
  if (in_record) {
    print_record(&r);
    ++records;
  }
  fastout_printf("#%lu records\n", records);
  /* A write error is sticky: the last flush returns any of them. */
  error = fastout_flush(fastout_stdout());
  if (error == EOF) { /* as fflush(): the cause is in errno */
    fprintf(stderr, "comp: stdout: %s\n", fastout_error_name(errno));
    return 1;
  }
  return 0;
}
