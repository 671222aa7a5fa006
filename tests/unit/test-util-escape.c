/* SPDX-License-Identifier: MIT */
/*
 * The writers' one set of escapers and JSON helpers (src/util-escape.h):
 * HTML, XML (JUnit) and Markdown text and code spans, JSON numbers.
 *
 * The Markdown code-span rule follows CommonMark 0.31.2 §6.1 ("Code
 * spans"): a code span begins and ends with backtick strings of equal
 * length, so content holding a run of n backticks needs a fence of n + 1;
 * backslash escapes do not work inside; when the content both begins and
 * ends with a space (and is not all spaces) one space is stripped from each
 * side, so content that begins or ends with a backtick, or with spaces on
 * both sides, is padded with one space. In a GFM table a '|' inside a code
 * span still splits the cell unless written "\|" (GFM spec 0.29, §4.10
 * "Tables (extension)": the escape applies inside other inline spans), and
 * GFM shows it as '|'.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-escape.h"

static char *
text_of(void (*fn)(struct strbuf *, const char *), const char *s)
{
	struct strbuf sb;

	strbuf_init(&sb);
	fn(&sb, s);
	return strbuf_steal(&sb);
}

static char *
code_of(const char *s, bool in_table)
{
	struct strbuf sb;

	strbuf_init(&sb);
	md_code(&sb, s, in_table);
	return strbuf_steal(&sb);
}

#define CHECK_CODE(in, table, want)                                                               \
	do {                                                                                      \
		char *got_ = code_of(in, table);                                                  \
		ck_assert_str_eq(got_, want);                                                     \
		free(got_);                                                                       \
	} while (0)

#define CHECK_TEXT(fn, in, want)                                                                  \
	do {                                                                                      \
		char *got_ = text_of(fn, in);                                                     \
		ck_assert_str_eq(got_, want);                                                     \
		free(got_);                                                                       \
	} while (0)

/* Backticks are kept: the fence outgrows every run inside (the gate once wrote ' instead). */
START_TEST(md_code_backticks)
{
	CHECK_CODE("plain", false, "`plain`");
	CHECK_CODE("a`b", false, "``a`b``");
	CHECK_CODE("a``b`c", false, "```a``b`c```");
	/* Starting or ending with a backtick: padded, or the fence would absorb it. */
	CHECK_CODE("`t`", false, "`` `t` ``");
	CHECK_CODE("x`", false, "`` x` ``");
	CHECK_CODE("``y", false, "``` ``y ```");
}
END_TEST

/* Spaces a renderer would strip are kept by padding; all-space content is never stripped. */
START_TEST(md_code_spaces)
{
	CHECK_CODE(" a ", false, "`  a  `");
	CHECK_CODE(" a", false, "` a`");
	CHECK_CODE("   ", false, "`   `");
	CHECK_CODE("", false, "` `");
	/* Line breaks and other control characters would end a table row or a list item. */
	CHECK_CODE("a\nb\tc\rd\x01", false, "`a b c d `");
}
END_TEST

/* '|' is escaped in table cells only: elsewhere the backslash would show. */
START_TEST(md_code_pipes)
{
	CHECK_CODE("x|y", true, "`x\\|y`");
	CHECK_CODE("x|y", false, "`x|y`");
	CHECK_CODE("k<T&U>\"x\"|`y`", true, "`` k<T&U>\"x\"\\|`y` ``");
}
END_TEST

START_TEST(md_text_escapes)
{
	CHECK_TEXT(md_text, "a*b_c`d|e\\f[g]#h~i", "a\\*b\\_c\\`d\\|e\\\\f\\[g\\]\\#h\\~i");
	/* No raw HTML and no entity reaches the renderer. */
	CHECK_TEXT(md_text, "<script>&copy;</script>", "&lt;script&gt;&amp;copy;&lt;/script&gt;");
	CHECK_TEXT(md_text, "one\ntwo\r\tthree", "one two  three");
	CHECK_TEXT(md_text, "plain (text) 1.5 -> 2", "plain (text) 1.5 -&gt; 2");
	CHECK_TEXT(md_text, NULL, "");
}
END_TEST

START_TEST(html_and_xml)
{
	CHECK_TEXT(html_escape, "<a href=\"x\">'&'</a>",
		   "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
	CHECK_TEXT(html_escape, "naïve – ok", "naïve – ok");
	/*
	 * XML 1.0 forbids most control characters and U+FFFE, U+FFFF (Char,
	 * section 2.2): U+FFFD. Tab and line breaks survive attributes.
	 */
	CHECK_TEXT(xml_escape, "a<b&'\"\t\n\r\x01" "c",
		   "a&lt;b&amp;&apos;&quot;&#9;&#10;&#13;\xef\xbf\xbd" "c");
	CHECK_TEXT(xml_escape, NULL, "");
}
END_TEST

/*
 * The non-characters U+FFFE and U+FFFF made JUnit XML no
 * parser accepts; bidirectional overrides were kept silently in names
 * shown to people (they reorder what is read). Before: both as they were.
 */
START_TEST(noncharacters_and_bidi)
{
	CHECK_TEXT(xml_escape, "k\xef\xbf\xbe" "x\xef\xbf\xbf", "k\xef\xbf\xbd" "x\xef\xbf\xbd");
	CHECK_TEXT(xml_escape, "\xef\xbf\xbc ok", "\xef\xbf\xbc ok");
	CHECK_TEXT(xml_escape, "a\xe2\x80\xae" "b", "a\\u202eb");
	CHECK_TEXT(html_escape, "a\xe2\x80\xae" "b\xe2\x81\xa6", "a\\u202eb\\u2066");
	CHECK_TEXT(md_text, "a\xe2\x80\xae" "b_", "a\\u202eb\\_");
	CHECK_CODE("a\xe2\x80\x8f" "b", false, "`a\\u200fb`");
}
END_TEST

/*
 * A bare URL in Markdown text is an autolink, <…>: escaped,
 * its '_' became "\_" and the link GFM makes of it broke. Trailing
 * punctuation stays outside; a word that only contains "http://" is text.
 */
START_TEST(md_text_bare_urls)
{
	CHECK_TEXT(md_text, "see https://x.org/a_b_c. and (https://y.org/p~q?r=1_2), done",
		   "see <https://x.org/a_b_c>. and (<https://y.org/p~q?r=1_2>), done");
	CHECK_TEXT(md_text, "http://h/x|y z", "<http://h/x>\\|y z");
	CHECK_TEXT(md_text, "xhttps://a_b", "xhttps://a\\_b");
	CHECK_TEXT(md_text, "https:// alone_", "https:// alone\\_");
}
END_TEST

START_TEST(json_numbers)
{
	json_t *o = json_object();
	char *text;

	json_object_set_new(o, "nan", json_num(NAN));
	json_object_set_new(o, "inf", json_num(INFINITY));
	json_object_set_new(o, "x", json_num(0.1));
	json_object_set_new(o, "dim", json_dim3((struct gpuproj_dim3){ 4, 2, 1 }));
	json_object_set_new(o, "s", json_str_or_null(NULL));
	text = json_text(o);
	/* Full double precision (a round trip is exact), nulls for what JSON cannot hold. */
	ck_assert_str_eq(text, "{\n \"nan\": null,\n \"inf\": null,\n \"x\": 0.10000000000000001,\n"
			 " \"dim\": [\n  4,\n  2,\n  1\n ],\n \"s\": null\n}\n");
	free(text);
	json_decref(o);
}
END_TEST

/* ---- text for terminals and logs, CSV formulas ---- */

static char *
term_of(const char *s)
{
	struct strbuf sb;

	strbuf_init(&sb);
	term_text(&sb, s, SIZE_MAX);
	return strbuf_steal(&sb);
}

/*
 * What a terminal acts on is shown as an escape, as git and
 * journalctl do: a window title (OSC 0), the clipboard (OSC 52), a
 * carriage return that would overwrite the line with a fake PASS, a C1
 * CSI, bytes that are not UTF-8, and a right-to-left override.
 */
START_TEST(term_text_escapes)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "plain name(int, float*)", "plain name(int, float*)" },
		{ "\x1b]0;owned\a", "\\e]0;owned\\a" },
		{ "\x1b]52;c;cHduZWQ=\x07", "\\e]52;c;cHduZWQ=\\a" },
		{ "k\rgpuproj gate: PASS", "k\\rgpuproj gate: PASS" },
		{ "tab\tnl\nbs\bvt\vff\fnul\x01" "del\x7f", "tab\\tnl\\nbs\\bvt\\vff\\fnul\\x01del\\x7f" },
		{ "csi\xc2\x9b" "31m", "csi\\u009b31m" },
		{ "rlo\xe2\x80\xae" "txt.exe", "rlo\\u202etxt.exe" },
		{ "lri\xe2\x81\xa6" "x\xe2\x81\xa9", "lri\\u2066x\\u2069" },
		{ "bad\xff\xfe", "bad\\xff\\xfe" },
		{ "na\xc3\xafve \xe2\x80\x93 ok", "na\xc3\xafve \xe2\x80\x93 ok" },
		/* Escaping twice changes nothing: libproj.so's log escapes the table's lines. */
		{ "\\e]0;x\\a", "\\e]0;x\\a" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = term_of(cases[i].in);

		ck_assert_str_eq(got, cases[i].want);
		ck_assert(term_text_needs_escape(cases[i].in) == (strcmp(cases[i].in, got) != 0));
		free(got);
	}
}
END_TEST

/* A truncated name never cuts an escape or a UTF-8 sequence in half, and says "...". */
START_TEST(term_text_cut)
{
	char buf[16];

	/* "abc" + "\e" (2) + "[31mdef": 7 bytes of room cut before the escape. */
	ck_assert_str_eq(term_text_buf("abc\x1b[31mdefghij", buf, 8), "abc...");
	ck_assert_str_eq(term_text_buf("abc\x1b[31mdefghij", buf, 9), "abc\\e...");
	/* A four-byte escape is never split: "ab\x01" would be cut to "ab\x" by bytes. */
	ck_assert_str_eq(term_text_buf("ab\x01zzzzzzz", buf, 9), "ab...");
	ck_assert_str_eq(term_text_buf("ab\x01zzzzzzz", buf, 10), "ab\\x01...");
	/* UTF-8: the cut comes before "é", never between its two bytes. */
	ck_assert_str_eq(term_text_buf("abcd\xc3\xa9" "fghijkl", buf, 9), "abcd...");
	/* What fits is shown whole, without "...". */
	ck_assert_str_eq(term_text_buf("ab\x1b", buf, 5), "ab\\e");
	ck_assert_str_eq(term_text_buf("exactly-15-byte", buf, 16), "exactly-15-byte");
}
END_TEST

static char *
csv_of(const char *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	csv_write_field(f, s);
	fclose(f);
	return text;
}

/*
 * A cell that begins like a formula (= + - @ tab CR) is
 * neutralised as OWASP recommends: a leading single quote, and quoted.
 */
START_TEST(csv_formula_neutralised)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"" },
		{ "+1+1", "\"'+1+1\"" },
		{ "-2+3", "\"'-2+3\"" },
		{ "@SUM(A1:A9)", "\"'@SUM(A1:A9)\"" },
		{ "\tcmd", "\"'\tcmd\"" },
		{ "\rcmd", "\"'\rcmd\"" },
		{ "saxpy", "saxpy" },
		{ "a=b", "a=b" },
		{ "a,b", "\"a,b\"" },
		{ "", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = csv_of(cases[i].in);

		ck_assert_str_eq(got, cases[i].want);
		free(got);
	}
}
END_TEST

static Suite *
common_suite(void)
{
	Suite *s = suite_create("util-escape");
	TCase *tc = tcase_create("escapers");

	tcase_add_test(tc, md_code_backticks);
	tcase_add_test(tc, md_code_spaces);
	tcase_add_test(tc, md_code_pipes);
	tcase_add_test(tc, md_text_escapes);
	tcase_add_test(tc, html_and_xml);
	tcase_add_test(tc, json_numbers);
	tcase_add_test(tc, term_text_escapes);
	tcase_add_test(tc, term_text_cut);
	tcase_add_test(tc, csv_formula_neutralised);
	tcase_add_test(tc, noncharacters_and_bidi);
	tcase_add_test(tc, md_text_bare_urls);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(common_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
