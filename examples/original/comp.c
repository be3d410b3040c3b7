/* SPDX-License-Identifier: MIT */
/* comp: the base composition of each sequence of a FASTA file on standard
 * input, one tab-separated line per sequence as seqtk comp prints it, each
 * line flushed as soon as its record is done -- as seqtk and many tools do,
 * so that the next program in a pipe sees every record at once. It uses
 * standard output the stdio way: puts() for the header, fputs() of the name
 * to stdout, printf() of the counts, putchar() to end the line, fflush() per
 * record. examples/comp.c is this program moved to fastout; the tests run
 * both and compare their output.
 *
 *   comp < seqs.fa    prints: name, length, and the number of A, C, G, T and
 *                     other letters (upper or lower case) of each sequence */
#include <ctype.h>
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
  fputs(r->name, stdout);
  printf("\t%lu", r->length);
  for (i = 0; i < 5; ++i) printf("\t%lu", r->bases[i]);
  putchar('\n');
  fflush(stdout); /* the record is done: send it */
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
  int c, in_record = 0, line_start = 1;
  unsigned long records = 0;
  puts("#name\tlength\tA\tC\tG\tT\tother");
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
  printf("#%lu records\n", records);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror("comp: stdout");
    return 1;
  }
  return 0;
}
