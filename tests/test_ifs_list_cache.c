/*
** test_ifs_list_cache.c — unit tests of ext/ifs_list_cache.c: a list kept
** is found at the start of any text that begins with its JSON, with the
** needles and text it was offered with (copies), and its needle set, built
** once, answers for those needles; a long list is kept when
** first offered, a short one when offered again; thousands are kept, and
** found though their first bytes are the same; the list found last is never
** the one replaced, so a list found on every call stays, and lists coming
** back in turn, more than fit, are mostly kept; a list past the bound is not kept, nor a list kept already again; a
** list found is named by its entry and when it was kept, by which its JSON
** is had for as long as the cache holds it, and counts its finds, and says
** whether its text holds byte CC or CF and whether its JSON is valid UTF-8;
** a find told where a list is finds it there, or where a find would;
** a list found cold names the list
** found cold after it, while both are held; the
** cache keeps within its bytes, never dropping a list its caller holds; out
** of memory keeps nothing and loses nothing.
*/
#include "ifs_test.h"
#include "ifs_list_cache.h"
#include <stdio.h>

/* A list of k needles "n0".."n{k-1}" (each its own lowercase) and its
** JSON text, in caller's buffers. */
typedef struct made {
  char json[4096], text[4096];
  ifs_list_needle nd[256];
  ifs_list list;
  size_t jn;
} made;

static void make(made *m, const char *tag, size_t k) {
  size_t jn = 0, tn = 0;
  m->json[jn++] = '[';
  for (size_t i = 0; i < k; i++) {
    int w = snprintf(m->text + tn, sizeof m->text - tn, "%s%zu", tag, i);
    m->nd[i].arg_at = m->nd[i].low_at = (uint32_t)tn;
    m->nd[i].arg_len = m->nd[i].low_len = (uint32_t)w;
    jn += (size_t)snprintf(m->json + jn, sizeof m->json - jn, "%s\"%s%zu\"", i ? ", " : "", tag, i);
    tn += (size_t)w;
  }
  m->json[jn++] = ']';
  m->json[jn] = 0;
  m->jn = jn;
  m->list.text = m->text;
  m->list.tn = tn;
  m->list.needles = m->nd;
  m->list.k = k;
}

/* Another long list (kept when first offered), number i: "w<i>_0", ... */
static void make_other(made *m, int i) {
  char tag[32];
  snprintf(tag, sizeof tag, "w%d_", i);
  make(m, tag, IFS_LIST_CACHE_EAGER);
}

/* 1 when the cache finds m's list at the start of m's JSON + tail. */
static int finds(ifs_list_cache *c, const made *m, const char *tail) {
  char s[4200];
  int n = snprintf(s, sizeof s, "%s%s", m->json, tail);
  ifs_list got;
  size_t len = ifs_list_cache_find(c, s, (size_t)n, &got);
  if (len == 0) return 0;
  ck_assert_uint_eq(len, m->jn);
  ck_assert_uint_eq(got.k, m->list.k);
  ck_assert_uint_eq(got.tn, m->list.tn);
  ck_assert_ptr_ne(got.text, m->list.text);   /* a copy */
  ck_assert_mem_eq(got.text, m->list.text, got.tn);
  ck_assert_mem_eq(got.needles, m->list.needles, got.k * sizeof *got.needles);
  return 1;
}

/* The bytes the cache counts: their sum over its entries (checked by the
** hook), and how many entries it holds. */
static size_t counted(const ifs_list_cache *c, size_t *kept) {
  size_t bytes = ifs_test_list_cache_bytes(c, kept);
  ck_assert_uint_ne(bytes, (size_t)-1);
  return bytes;
}

static void offer(ifs_list_cache *c, const made *m) {
  ck_assert_int_eq(ifs_list_cache_offer(c, m->json, m->jn, &m->list, NULL, 0), IFS_OK);
}

START_TEST(kept_lists_are_found) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made lng, sht;
  make(&lng, "refusal", IFS_LIST_CACHE_EAGER);
  make(&sht, "own", 8);
  ck_assert(!finds(c, &lng, ""));
  offer(c, &lng);   /* long: kept at once */
  ck_assert(finds(c, &lng, ""));
  ck_assert(finds(c, &lng, ", \"must_include\": [1]}"));
  offer(c, &sht);   /* short: remembered only */
  ck_assert(!finds(c, &sht, "}"));
  offer(c, &sht);
  ck_assert(finds(c, &sht, "}"));
  /* not the bytes of a kept list: a different last needle, a cut text */
  char s[4200];
  snprintf(s, sizeof s, "%s", lng.json);
  s[lng.jn - 2] = '9';
  ifs_list got;
  ck_assert_uint_eq(ifs_list_cache_find(c, s, lng.jn, &got), 0);
  ck_assert_uint_eq(ifs_list_cache_find(c, lng.json, lng.jn - 1, &got), 0);
  /* the set: built at the first asking, then the same */
  ck_assert_uint_eq(ifs_list_cache_find(c, sht.json, sht.jn, &got), sht.jn);
  const ifs_needle_set *set, *again;
  const char *set_text, *text_again;
  ifs_test_fail_nth(1);
  ck_assert_int_eq(ifs_list_cache_set(c, &got, 1, &set, &set_text), IFS_NOMEM);
  ifs_test_fail_nth(0);
  ck_assert_ptr_null(set);
  ck_assert_int_eq(ifs_list_cache_set(c, &got, 1, &set, &set_text), IFS_OK);
  ifs_test_fail_nth(1);
  ck_assert_int_eq(ifs_list_cache_set(c, &got, 1, &again, &text_again), IFS_OK);
  ifs_test_fail_nth(0);
  ck_assert(set == again && set_text == text_again && set_text == got.text);
  signed char found[8];
  const char *resp = "Own3 and OWN7; own1";
  ifs_needle_set_find(set, set_text, resp, strlen(resp), 1, found);
  static const signed char want[8] = {0, 1, 0, 1, 0, 0, 0, 1};
  ck_assert_mem_eq(found, want, 8);
  ifs_list_cache_free(c);
}
END_TEST

/* A find told where the list is (its slot and when it was kept, as a
** plan remembers them) finds it there without looking it up by its hash;
** told wrong (another list's slot, a list dropped since, a slot past the
** cache's), it finds what a find does; a text that does not start with the
** list told of is no list of it. */
START_TEST(a_list_found_where_told) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made a, b;
  make(&a, "alpha", IFS_LIST_CACHE_EAGER);
  make(&b, "beta", IFS_LIST_CACHE_EAGER);
  offer(c, &a);
  offer(c, &b);
  ifs_list at_a, at_b, got;
  ck_assert_uint_eq(ifs_list_cache_find(c, a.json, a.jn, &at_a), a.jn);
  ck_assert_uint_eq(ifs_list_cache_find(c, b.json, b.jn, &at_b), b.jn);
  ck_assert_uint_ne(at_a.slot, at_b.slot);
  char s[4200];
  int n = snprintf(s, sizeof s, "%s, \"id\": 7}", a.json);
  size_t lookups = ifs_test_list_cache_lookups(c);
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_a.slot, at_a.kept, s, (size_t)n, &got), a.jn);
  ck_assert_uint_eq(ifs_test_list_cache_lookups(c), lookups);   /* told right */
  ck_assert_uint_eq(got.slot, at_a.slot);
  ck_assert_uint_eq(got.kept, at_a.kept);
  ck_assert_uint_eq(got.finds, at_a.finds + 1);
  ck_assert_uint_eq(got.k, a.list.k);
  ck_assert_mem_eq(got.text, a.list.text, a.list.tn);
  /* told wrong: found all the same, looked up */
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_b.slot, at_b.kept, s, (size_t)n, &got), a.jn);
  ck_assert_uint_eq(got.slot, at_a.slot);
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_a.slot, at_a.kept + 1, s, (size_t)n, &got), a.jn);
  ck_assert_uint_eq(ifs_list_cache_find_at(c, 1u << 20, at_a.kept, s, (size_t)n, &got), a.jn);
  ck_assert_uint_eq(got.slot, at_a.slot);
  ck_assert_uint_eq(ifs_test_list_cache_lookups(c), lookups + 3);
  /* not the list told of: a cut text, another byte, another list */
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_a.slot, at_a.kept, s, a.jn - 1, &got), 0);
  s[a.jn - 2] = '9';
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_a.slot, at_a.kept, s, (size_t)n, &got), 0);
  ck_assert_uint_eq(ifs_list_cache_find_at(c, at_a.slot, at_a.kept, b.json, b.jn, &got), b.jn);
  ck_assert_uint_eq(got.slot, at_b.slot);
  ifs_list_cache_free(c);
}
END_TEST

/* Lists offered once each, a shared one found between every two: it stays;
** and offering a kept list again keeps no second copy. */
START_TEST(a_list_found_on_every_call_stays) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made shared, other;
  make(&shared, "sorry", IFS_LIST_CACHE_EAGER);
  offer(c, &shared);
  for (int i = 0; i < 4 * IFS_LIST_CACHE_ENTRIES; i++) {
    make_other(&other, i);
    offer(c, &other);
    ck_assert(finds(c, &shared, ""));
  }
  ck_assert(finds(c, &other, ""));
  make_other(&other, 0);
  ck_assert(!finds(c, &other, ""));   /* replaced long since */
  /* offered again, a kept list is not copied again (nothing allocated) */
  ifs_test_fail_nth(1);
  ifs_status rc = ifs_list_cache_offer(c, shared.json, shared.jn, &shared.list, NULL, 0);
  ifs_test_fail_nth(0);
  ck_assert_int_eq(rc, IFS_OK);
  ifs_list_cache_free(c);
}
END_TEST

/* A list found names its entry and when it was kept: its JSON while the
** cache holds it, none once its entry has gone to another list, nor when
** it is kept again (a new name); its finds count from 1. */
START_TEST(a_list_is_named_while_held) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made shared, other;
  make(&shared, "sorry", IFS_LIST_CACHE_EAGER);
  offer(c, &shared);
  size_t kept, one = counted(c, &kept);
  ifs_test_list_cache_bound(c, 4 * one);   /* four such lists */
  ifs_list got, first;
  for (uint64_t i = 1; i <= 3; i++) {
    ck_assert_uint_eq(ifs_list_cache_find(c, shared.json, shared.jn, &got), shared.jn);
    ck_assert_uint_eq(got.finds, i);
  }
  first = got;
  const char *json = ifs_list_cache_json(c, got.slot, got.kept);
  ck_assert_ptr_nonnull(json);
  ck_assert_mem_eq(json, shared.json, shared.jn);
  ck_assert_ptr_null(ifs_list_cache_json(c, got.slot, got.kept + 1));
  ck_assert_ptr_null(ifs_list_cache_json(c, IFS_LIST_CACHE_ENTRIES, got.kept));
  int i = 0;   /* others, never found: one of them takes its entry in time */
  for (; i < 100 && ifs_list_cache_json(c, first.slot, first.kept); i++) {
    make_other(&other, i);
    offer(c, &other);
    ck_assert_uint_le(counted(c, &kept), 4 * one);
    ck_assert_uint_eq(kept, i < 2 ? (size_t)i + 2 : kept);
  }
  ck_assert_int_lt(i, 100);
  ck_assert_int_ge(i, 4);   /* not before the cache was full */
  ck_assert(!finds(c, &shared, ""));
  offer(c, &shared);
  ck_assert_uint_eq(ifs_list_cache_find(c, shared.json, shared.jn, &got), shared.jn);
  ck_assert_uint_ne(got.kept, first.kept);   /* another name */
  ck_assert_uint_eq(got.finds, 1);
  ck_assert_ptr_null(ifs_list_cache_json(c, first.slot, first.kept));
  ck_assert_ptr_nonnull(ifs_list_cache_json(c, got.slot, got.kept));
  ifs_list_cache_free(c);
}
END_TEST

/* As many lists as the cache has entries: each found; one more takes the
** place of one of them.  Lists alike for more than the bytes hashed: at
** most IFS_LIST_CACHE_ALIKE kept at once, each found; and a list of no
** more than those bytes is not kept. */
START_TEST(thousands_of_lists_kept) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  static made m;
  char tag[64];
  for (int i = 0; i <= IFS_LIST_CACHE_ENTRIES; i++) {
    snprintf(tag, sizeof tag, "%d_", i);
    make(&m, tag, IFS_LIST_CACHE_EAGER);
    offer(c, &m);
    ck_assert(finds(c, &m, ""));
  }
  size_t kept;
  counted(c, &kept);
  ck_assert_uint_eq(kept, IFS_LIST_CACHE_ENTRIES);
  int found = 0;
  for (int i = 0; i <= IFS_LIST_CACHE_ENTRIES; i++) {
    snprintf(tag, sizeof tag, "%d_", i);
    make(&m, tag, IFS_LIST_CACHE_EAGER);
    found += finds(c, &m, "");
  }
  ck_assert_int_eq(found, IFS_LIST_CACHE_ENTRIES);
  ifs_list_cache_free(c);
  c = ifs_list_cache_new(NULL);
  for (int i = 0; i < 3 * IFS_LIST_CACHE_ALIKE; i++) {
    snprintf(tag, sizeof tag, "the same first bytes, for more than hashed %d_", i);
    make(&m, tag, IFS_LIST_CACHE_EAGER);
    offer(c, &m);
    ck_assert(finds(c, &m, ""));
    counted(c, &kept);
    ck_assert_uint_eq(kept, i < IFS_LIST_CACHE_ALIKE ? (size_t)i + 1 : IFS_LIST_CACHE_ALIKE);
  }
  make(&m, "", 8);   /* its JSON in as few bytes as are hashed */
  m.jn = (size_t)snprintf(m.json, sizeof m.json, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9  ]");
  ck_assert_uint_eq(m.jn, IFS_LIST_CACHE_KEY);
  offer(c, &m);
  offer(c, &m);
  ck_assert(!finds(c, &m, "                 "));
  ifs_list_cache_free(c);
}
END_TEST

/* A table's lists coming back in turn, more than the cache holds: dropping
** the least recently used would keep none that the next row needs; the
** cache keeps more than three in ten.  And a case's own words (short lists)
** offered in turn, twice, are kept: their first offers are remembered. */
START_TEST(lists_in_turn_mostly_kept) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  static made m[96];
  for (int i = 0; i < 96; i++) make_other(&m[i], i);
  offer(c, &m[0]);
  size_t kept, one = counted(c, &kept);
  ifs_test_list_cache_bound(c, 64 * one);
  int hits = 0;
  for (int round = 0; round < 10; round++)
    for (int i = 0; i < 96; i++) {
      int hit = finds(c, &m[i], "");
      if (!hit) offer(c, &m[i]);
      if (round) hits += hit;
    }
  ck_assert_int_gt(hits, 9 * 96 * 3 / 10);
  ck_assert_int_lt(hits, 9 * 64);
  ifs_list_cache_free(c);
  c = ifs_list_cache_new(NULL);
  static made own;
  char tag[32];
  int found = 0;
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < 2000; i++) {
      snprintf(tag, sizeof tag, "w%d_", i);
      make(&own, tag, 10);
      if (pass < 2) offer(c, &own);
      else found += finds(c, &own, "");
    }
  ck_assert_int_gt(found, 1960);
  ifs_list_cache_free(c);
}
END_TEST

/* A list found cold (not among the latest finds: a case's own words, back
** once a run of the table) links the list found cold before it to itself,
** so that its next find asks for it a row ahead; a list found on every
** row (a refusal list) is cold at its first find only, and no link leads
** to it; a list dropped takes the links to it and from it along, and no
** other. */
START_TEST(a_list_found_cold_follows_the_one_before) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  static made own[20], refusal;
  make(&refusal, "refusal", IFS_LIST_CACHE_EAGER);
  offer(c, &refusal);
  size_t slot[21];   /* the cases' lists and, last, the refusal list */
  uint64_t kept_at[21];
  for (int i = 0; i < 20; i++) {
    make_other(&own[i], i);
    offer(c, &own[i]);
  }
  for (int i = 0; i < 20; i++) {   /* each row: the refusal list, a case's own */
    ck_assert(finds(c, &refusal, ""));
    ifs_list got;
    ck_assert_uint_eq(ifs_list_cache_find(c, own[i].json, own[i].jn, &got), own[i].jn);
    slot[i] = got.slot;
    kept_at[i] = got.kept;
  }
  ifs_list got;
  ck_assert_uint_eq(ifs_list_cache_find(c, refusal.json, refusal.jn, &got), refusal.jn);
  slot[20] = got.slot;
  kept_at[20] = got.kept;
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[20]), slot[0]);
  for (int i = 0; i + 1 < 20; i++)
    ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[i]), slot[i + 1]);
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[19]), (size_t)-1);
  for (int i = 0; i < 20; i++)   /* the cases' lists no longer among the latest */
    ck_assert(finds(c, &refusal, ""));
  for (int i = 19; i >= 10; i--)   /* the order changes: so do the links */
    ck_assert(finds(c, &own[i], ""));
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[19]), slot[18]);
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[11]), slot[10]);
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[12]), slot[11]);
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[3]), slot[4]);
  /* a list found again soon is not cold: the next cold one follows the
  ** last found cold */
  ck_assert(finds(c, &own[12], ""));
  ck_assert(finds(c, &own[5], ""));
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[10]), slot[5]);
  ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[12]), slot[11]);
  /* a list dropped: only the links to it and from it go */
  ck_assert(finds(c, &refusal, ""));
  size_t before[21];
  for (int i = 0; i < 21; i++) before[i] = ifs_test_list_cache_after(c, slot[i]);
  size_t kept, bytes = counted(c, &kept);
  ifs_test_list_cache_bound(c, bytes);   /* the next list kept drops one */
  made more;
  make_other(&more, 99);
  offer(c, &more);
  ck_assert_uint_eq(counted(c, &kept), bytes);   /* and the links hold */
  int dropped = -1, links = 0;
  for (int i = 0; i < 21; i++)
    if (!ifs_list_cache_json(c, slot[i], kept_at[i])) dropped = i;
  ck_assert_int_ge(dropped, 0);
  ck_assert_int_lt(dropped, 20);   /* not the refusal list, just found */
  for (int i = 0; i < 21; i++) {
    size_t want = i == dropped || before[i] == slot[dropped] ? (size_t)-1 : before[i];
    ck_assert_uint_eq(ifs_test_list_cache_after(c, slot[i]), want);
    links += want != (size_t)-1;
  }
  ck_assert_int_ge(links, 16);
  ifs_list_cache_free(c);
}
END_TEST

/* A list found says whether its text holds byte CC or CF (a needle there
** may meet a context lowercase), from that byte anywhere in its text. */
START_TEST(a_list_found_says_if_it_may_meet_context) {
  static const char *const tags[] = {"plain", "\xcf\x83\xce\xb1", "x\xcc\x87",
                                     "\xce\xb1\xce\xb2"};   /* σα, x + U+0307, αβ */
  static const int want[] = {0, 1, 1, 0};
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  ck_assert_ptr_nonnull(c);
  for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
    made m;
    make(&m, tags[t], IFS_LIST_CACHE_EAGER);
    m.list.context = !want[t];   /* what the caller says does not count */
    offer(c, &m);
    ifs_list got;
    ck_assert_uint_eq(ifs_list_cache_find(c, m.json, m.jn, &got), m.jn);
    ck_assert_int_eq(got.context, want[t]);
  }
  made last;   /* the byte in the last needle only */
  make(&last, "n", IFS_LIST_CACHE_EAGER);
  memcpy(last.text + last.list.tn, "\xcf\x82", 2);
  last.nd[last.list.k - 1].arg_len = last.nd[last.list.k - 1].low_len += 2;
  last.list.tn += 2;
  memcpy(last.json + last.jn - 2, "\xcf\x82\"]", 5);   /* (and the NUL) */
  last.jn += 2;
  offer(c, &last);
  ifs_list got;
  ck_assert_uint_eq(ifs_list_cache_find(c, last.json, last.jn, &got), last.jn);
  ck_assert_int_eq(got.context, 1);
  ifs_list_cache_free(c);
}
END_TEST

/* A list found says whether its JSON is valid UTF-8 as given (a list of a
** text that was not is kept in its internal form: U+DCFF for byte FF),
** whatever the caller says. */
START_TEST(a_list_found_says_if_its_json_is_strict) {
  static const char *const tags[] = {"plain", "\xce\xb1", "\xed\xb3\xbf", "\xed\xa0\x80"};
  static const int want[] = {1, 1, 0, 0};
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  ck_assert_ptr_nonnull(c);
  for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
    made m;
    make(&m, tags[t], IFS_LIST_CACHE_EAGER);
    m.list.strict = !want[t];
    offer(c, &m);
    ifs_list got;
    ck_assert_uint_eq(ifs_list_cache_find(c, m.json, m.jn, &got), m.jn);
    ck_assert_int_eq(got.strict, want[t]);
  }
  ifs_list_cache_free(c);
}
END_TEST

START_TEST(too_big_or_empty_not_kept) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made m;
  make(&m, "x", IFS_LIST_CACHE_EAGER);
  static char big[IFS_LIST_CACHE_MAX + 16];
  memset(big, ' ', sizeof big);
  memcpy(big, m.json, m.jn - 1);
  big[sizeof big - 1] = ']';
  ck_assert_int_eq(ifs_list_cache_offer(c, big, sizeof big, &m.list, NULL, 0), IFS_OK);
  ifs_list got;
  ck_assert_uint_eq(ifs_list_cache_find(c, big, sizeof big, &got), 0);
  ifs_list empty = {"", 0, NULL, 0, 0, 0, 0, 0, 0};
  ck_assert_int_eq(ifs_list_cache_offer(c, "[]", 2, &empty, NULL, 0), IFS_OK);
  ck_assert_uint_eq(ifs_list_cache_find(c, "[]", 2, &got), 0);
  ifs_list_cache_free(c);
}
END_TEST

/* The cache within its bytes: lists dropped to make room, never the one
** found last, several at once after a set was built (sets count once
** built, over the bound until the next offer); a list the caller holds
** stays, and a list that fits only in its place is not kept. */
START_TEST(bytes_bounded) {
  ifs_list_cache *c = ifs_list_cache_new(NULL);
  made m[6];
  for (int i = 0; i < 6; i++) make_other(&m[i], i);
  size_t kept, one = counted(c, &kept);
  ck_assert_uint_eq(one, 0);
  offer(c, &m[0]);
  one = counted(c, &kept);   /* the bytes of one such list, no set */
  ck_assert_uint_eq(kept, 1);
  ifs_test_list_cache_bound(c, 3 * one);
  offer(c, &m[1]);
  offer(c, &m[2]);
  ck_assert_uint_eq(counted(c, &kept), 3 * one);
  ck_assert_uint_eq(kept, 3);
  ck_assert(finds(c, &m[1], ""));
  offer(c, &m[3]);   /* m[0] or m[2] goes */
  ck_assert_uint_eq(counted(c, &kept), 3 * one);
  ck_assert_int_eq(finds(c, &m[0], "") + finds(c, &m[2], ""), 1);
  ck_assert(finds(c, &m[1], "") && finds(c, &m[3], ""));
  /* a set counts once built (here it is bigger than the bound); the next
  ** offer makes room for it, dropping all three lists at once */
  ifs_list got;
  ck_assert_uint_eq(ifs_list_cache_find(c, m[1].json, m[1].jn, &got), m[1].jn);
  const ifs_needle_set *set;
  const char *set_text;
  ck_assert_int_eq(ifs_list_cache_set(c, &got, 1, &set, &set_text), IFS_OK);
  size_t with_set = one + ifs_needle_set_bytes(set);
  ck_assert_uint_gt(with_set, 3 * one);
  ck_assert_uint_eq(counted(c, &kept), 2 * one + with_set);
  offer(c, &m[4]);
  ck_assert_uint_eq(counted(c, &kept), one);
  ck_assert_uint_eq(kept, 1);
  ck_assert(!finds(c, &m[1], "") && !finds(c, &m[2], "") && !finds(c, &m[3], ""));
  ck_assert(finds(c, &m[4], ""));
  /* a list the caller holds stays: m[4] goes, though found after it */
  ifs_test_list_cache_bound(c, with_set + one);
  offer(c, &m[2]);
  ck_assert_uint_eq(ifs_list_cache_find(c, m[2].json, m[2].jn, &got), m[2].jn);
  ck_assert_int_eq(ifs_list_cache_set(c, &got, 1, &set, &set_text), IFS_OK);
  ck_assert(finds(c, &m[4], ""));
  ck_assert_uint_eq(counted(c, &kept), with_set + one);
  ck_assert_int_eq(ifs_list_cache_offer(c, m[5].json, m[5].jn, &m[5].list, &got, 1), IFS_OK);
  ck_assert_uint_eq(counted(c, &kept), with_set + one);
  ck_assert(finds(c, &m[5], "") && !finds(c, &m[4], ""));
  ck_assert_ptr_nonnull(ifs_list_cache_json(c, got.slot, got.kept));
  /* a list that fits only in the place of the one held: not kept, and
  ** nothing dropped for it */
  ifs_test_list_cache_bound(c, with_set + one - 1);
  ck_assert_int_eq(ifs_list_cache_offer(c, m[0].json, m[0].jn, &m[0].list, &got, 1), IFS_OK);
  ck_assert(!finds(c, &m[0], ""));
  ck_assert_ptr_nonnull(ifs_list_cache_json(c, got.slot, got.kept));
  ck_assert(finds(c, &m[5], ""));
  ifs_list_cache_free(c);
}
END_TEST

START_TEST(out_of_memory_keeps_nothing) {
  made a, b;
  make(&a, "a", IFS_LIST_CACHE_EAGER);
  make(&b, "b", 8);
  int completed = 0;
  for (long n = 1; n < 50 && !completed; n++) {
    ifs_test_fail_nth(n);
    ifs_list_cache *c = ifs_list_cache_new(NULL);
    if (c) {
      ifs_status ra = ifs_list_cache_offer(c, a.json, a.jn, &a.list, NULL, 0);
      ifs_status rb = ifs_list_cache_offer(c, b.json, b.jn, &b.list, NULL, 0);
      ifs_status rb2 = ifs_list_cache_offer(c, b.json, b.jn, &b.list, NULL, 0);
      ck_assert(ra == IFS_OK || ra == IFS_NOMEM);
      ck_assert_int_eq(finds(c, &a, ""), ra == IFS_OK);
      ck_assert_int_eq(finds(c, &b, ""), rb == IFS_OK && rb2 == IFS_OK);
      if (ifs_test_alloc_count < n) completed = 1;
      ifs_list_cache_free(c);
    }
    ifs_test_fail_nth(0);
  }
  ck_assert(completed);
}
END_TEST

static Suite *list_cache_suite(void) {
  Suite *s = suite_create("ifs_list_cache");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, kept_lists_are_found);
  tcase_add_test(tc, a_list_found_where_told);
  tcase_add_test(tc, a_list_found_on_every_call_stays);
  tcase_add_test(tc, a_list_is_named_while_held);
  tcase_add_test(tc, thousands_of_lists_kept);
  tcase_add_test(tc, lists_in_turn_mostly_kept);
  tcase_add_test(tc, a_list_found_cold_follows_the_one_before);
  tcase_add_test(tc, a_list_found_says_if_it_may_meet_context);
  tcase_add_test(tc, a_list_found_says_if_its_json_is_strict);
  tcase_add_test(tc, too_big_or_empty_not_kept);
  tcase_add_test(tc, bytes_bounded);
  tcase_add_test(tc, out_of_memory_keeps_nothing);
  suite_add_tcase(s, tc);
  return s;
}

IFS_TEST_MAIN(list_cache_suite)
