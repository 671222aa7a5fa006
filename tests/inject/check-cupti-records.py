#!/usr/bin/env python3
"""Hold gpuproj's kernel record layouts, and the double's, to NVIDIA's headers.

For the cupti_activity.h / cupti_version.h of each CUPTI release at hand
(the installed toolkit's, and those scripts/setup-deps.sh unpacks from
NVIDIA's nvidia-cuda-cupti wheels into
${XDG_CACHE_HOME:-~/.cache}/gpuproj/cupti-headers/<wheel version>/include),
compile a small checker against that header and run it. It asserts
  (a) every member of struct kernel_prefix (inject/cupti/cupti-records.h) is where
      that release's kernel record has it, and those gpuproj reads are of
      the same size;
  (b) cupti_record_for(CUPTI_API_VERSION) names the record that header's
      CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL comment names ("The
      corresponding activity record structure is \\ref CUpti_ActivityKernelN");
  (c) the double (tests/fake/fake-records.h) writes that record: its size
      is sizeof(CUpti_ActivityKernelN), its appended members are where the
      header has them, and it knows every member the header appends;
  (d) cupti_is_13_0_ga() holds for the 13.0 GA release (wheel 13.0.48,
      API 130000) and for no other 13.0 release (13.0.85 is 130001);
  (f) for the whole run's kinds (MEMCPY, MEMSET, DRIVER, RUNTIME,
      CUDA_EVENT, STREAM, SYNCHRONIZATION): the kind's value is
      gpuproj's, every member TIMELINE_READ (inject/cupti/cupti-records.h) reads
      through the 13.0 struct is at the same offset and of the same size in
      the record that header's comment names for the kind, and the double
      (fake_other_record_for(), tests/fake/fake-records.h) writes that
      record, with its size.
The script itself checks that each header's members up to isDeviceLaunched
are those of the installed CUpti_ActivityKernel10, in its order.

Exit 77 (skip) with one line when no release's headers were fetched.
Usage: check-cupti-records.py SOURCE_ROOT CUDA_INCLUDE CUPTI_INCLUDE [CC...]
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# The whole run's kinds: CUpti_ActivityKind name, its value, what gpuproj reads of it.
TIMELINE_KINDS = [("MEMCPY", 1, "TIMELINE_MEMCPY_READ"), ("MEMSET", 2, "TIMELINE_MEMSET_READ"),
                  ("DRIVER", 4, "TIMELINE_API_READ"), ("RUNTIME", 5, "TIMELINE_API_READ"),
                  ("CUDA_EVENT", 36, "TIMELINE_EVENT_READ"), ("STREAM", 37, "TIMELINE_STREAM_READ"),
                  ("SYNCHRONIZATION", 38, "TIMELINE_SYNC_READ")]
GA_WHEEL = "13.0.48"  # CUDA 13.0.0's CUPTI; 13.0.85 is 13.0 Update 1
APPENDED = ["priority", "padding4", "executionModel", "padding5", "sourceGraphId", "padding6",
            "sourceGraphNodeId"]
# Members fake-records.h places (an offset each); the paddings it leaves zero.
FAKE_MEMBERS = {"priority": "priority", "executionModel": "execution_model",
                "sourceGraphId": "source_graph_id", "sourceGraphNodeId": "source_graph_node_id"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def kernel_record_name(activity_h):
    """The record CONCURRENT_KERNEL writes, per the header's own comment; and the newest KernelN."""
    with open(activity_h, errors="replace") as f:
        text = f.read()
    m = re.search(r"corresponding activity record structure\s+(?:\*\s+)?is\s+\\ref\s+"
                  r"(CUpti_ActivityKernel\d+)\.\s*\*/\s*CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL\s*=",
                  text)
    newest = max((int(n) for n in re.findall(r"}\s*CUpti_ActivityKernel(\d+)\s*;", text)),
                 default=None)
    return (m.group(1) if m else None), newest, text


def kind_record_name(text, kind):
    """The record CUPTI_ACTIVITY_KIND_<kind> writes, per the header's comment on it."""
    m = re.search(r"corresponding activity record structure\s+(?:\*\s+)?is\s+\\ref\s+"
                  r"(?:\*\s+)?(CUpti_Activity\w+?)\.?\s*\*/\s*CUPTI_ACTIVITY_KIND_" + kind +
                  r"\s*=", text)
    if not m:  # DRIVER and RUNTIME: "... \\ref CUpti_ActivityAPI." then more text
        block = re.search(r"/\*\*((?:(?!\*/).)*)\*/\s*CUPTI_ACTIVITY_KIND_" + kind + r"\s*=", text,
                          flags=re.S)
        m = block and re.search(r"\\ref\s+(?:\*\s+)?(CUpti_Activity\w+)", block.group(1))
    return m.group(1) if m else None


def timeline_checks(text):
    """The C of check (f) for this header, or (None, problem)."""
    out = ["#define TL_CHECK(rec, member) CHECK(offsetof(rec, member) == offsetof(TLR, member) "
           "&& sizeof(((rec *)0)->member) == sizeof(((TLR *)0)->member), "
           "#rec \".\" #member \" at %zu (%zu bytes), \" STR(TLR) \" has it at %zu (%zu bytes)\", "
           "offsetof(rec, member), sizeof(((rec *)0)->member), offsetof(TLR, member), "
           "sizeof(((TLR *)0)->member));"]
    names = []
    for kind, value, reads in TIMELINE_KINDS:
        rec = kind_record_name(text, kind)
        if not rec:
            return None, f"no record named for CUPTI_ACTIVITY_KIND_{kind}"
        names.append(f"{kind} {rec}")
        out += [f"#undef TLR", f"#define TLR {rec}",
                f"CHECK(CUPTI_ACTIVITY_KIND_{kind} == {value}, \"CUPTI_ACTIVITY_KIND_{kind} is "
                f"%d, gpuproj's {value}\", (int)CUPTI_ACTIVITY_KIND_{kind});",
                f"{reads}(TL_CHECK)",
                f"o = fake_other_record_for({value}, api);",
                f"CHECK(o && strcmp(o->record, \"{rec}\") == 0 && o->size == sizeof({rec}), "
                f"\"the double writes %s (%zu bytes) for {kind}, the header {rec} (%zu)\", "
                f"o ? o->record : \"nothing\", o ? o->size : 0, sizeof({rec}));"]
    return "\n\t".join(out), ", ".join(names)


def struct_members(text, name):
    """Top-level member names of `typedef struct ... { ... } name;`, in order."""
    code = strip_comments(text)
    end = re.search(r"}\s*" + re.escape(name) + r"\s*;", code)
    if not end:
        return None
    start = code.rfind("typedef struct", 0, end.start())
    body = code[code.index("{", start) + 1:end.start()]
    members, depth, cur = [], 0, ""
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            decl = re.sub(r"\[[^\]]*\]", "", cur)
            decl = re.sub(r":\s*\d+\s*$", "", decl.strip())
            ident = re.findall(r"[A-Za-z_]\w*", decl)
            if ident:
                members.append(ident[-1])
            cur = ""
            continue
        if depth == 0:
            cur += ch
    return members


def api_version(version_h):
    with open(version_h, errors="replace") as f:
        m = re.search(r"#define\s+CUPTI_API_VERSION\s+(\d+)", f.read())
    return int(m.group(1)) if m else None


def installed_version(cupti_inc):
    """The installed CUPTI's release, from the toolkit's version.json or wheel records."""
    for root in (os.path.dirname(cupti_inc), os.path.dirname(os.path.dirname(os.path.dirname(
            cupti_inc)))):
        try:
            with open(os.path.join(root, "version.json")) as f:
                return json.load(f)["cuda_cupti"]["version"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        found = glob.glob(os.path.join(root, "dist-info", "nvidia_cuda_cupti-*.dist-info"))
        if len(found) == 1:
            return re.sub(r"^nvidia_cuda_cupti-|\.dist-info$", "", os.path.basename(found[0]))
    return None


CHECKER = r"""
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cupti_activity.h>
#include <cupti_range_profiler.h>
#include <cupti_version.h>
#include "cupti-records.h"
#include "fake-records.h"

typedef KREC K;
static int fails;

#define STR_(x) #x
#define STR(x) STR_(x)

#define CHECK(cond, ...) do { if (!(cond)) { fails++; printf("  FAIL: "); printf(__VA_ARGS__); \
	printf("\n"); } } while (0)
#define PLACE(ours, theirs) CHECK(offsetof(struct kernel_prefix, ours) == offsetof(K, theirs), \
	"kernel_prefix." #ours " at %zu, " KREC_NAME "." #theirs " at %zu", \
	offsetof(struct kernel_prefix, ours), offsetof(K, theirs));
#define READ(ours, theirs) PLACE(ours, theirs) \
	CHECK(sizeof(((struct kernel_prefix *)0)->ours) == sizeof(((K *)0)->theirs), \
	"kernel_prefix." #ours " is %zu bytes, " KREC_NAME "." #theirs " %zu", \
	sizeof(((struct kernel_prefix *)0)->ours), sizeof(((K *)0)->theirs));
#define FAKE_AT(field, member) CHECK(f->field == (int)offsetof(K, member), \
	"fake-records.h puts " #member " at %d, " KREC_NAME " has it at %zu", f->field, \
	offsetof(K, member));
#define FAKE_NONE(field, member) CHECK(f->field == -1, \
	"fake-records.h writes " #member " at %d; " KREC_NAME " has none", f->field);

int
main(void)
{
	uint32_t api = CUPTI_API_VERSION;
	const char *ours = cupti_record_for(api);
	const struct fake_kernel_record *f = fake_kernel_record_for(api);

	/* (a) */
	KERNEL_PREFIX_READ(READ)
	KERNEL_PREFIX_UNREAD(PLACE)
	CHECK(KERNEL_PREFIX_END == offsetof(K, KERNEL_PREFIX_NEXT),
	      "kernel_prefix ends at %zu, " KREC_NAME "." STR(KERNEL_PREFIX_NEXT) " is at %zu",
	      (size_t)KERNEL_PREFIX_END, offsetof(K, KERNEL_PREFIX_NEXT));
	/* (b) */
	CHECK(ours && strcmp(ours, KREC_NAME) == 0,
	      "cupti_record_for(%u) is %s, the header says " KREC_NAME, api, ours ? ours : "NULL");
	/* (c) */
	CHECK(f != NULL, "fake-records.h has no row for API %u", api);
	if (f) {
		CHECK(strcmp(f->record, KREC_NAME) == 0, "fake-records.h writes %s for API %u",
		      f->record, api);
		CHECK(f->size == sizeof(K), "fake-records.h writes %zu bytes, sizeof(" KREC_NAME
		      ") is %zu", f->size, sizeof(K));
		CHECK(FAKE_KERNEL10_SHARED == offsetof(K, isDeviceLaunched) + 1,
		      "FAKE_KERNEL10_SHARED %d, isDeviceLaunched ends at %zu",
		      FAKE_KERNEL10_SHARED, offsetof(K, isDeviceLaunched) + 1);
		FAKE_CHECKS
	}
	/* (e) the range profiler's Enable struct: cacheControlMode from 13.4 on */
#define EP CUpti_RangeProfiler_Enable_Params
	CHECK(offsetof(struct rp_enable_134, pRangeProfilerObject) == offsetof(EP, pRangeProfilerObject),
	      "rp_enable_134.pRangeProfilerObject at %zu, the header's at %zu",
	      offsetof(struct rp_enable_134, pRangeProfilerObject), offsetof(EP, pRangeProfilerObject));
#ifdef HAS_CACHE_CONTROL
	CHECK(offsetof(struct rp_enable_134, cacheControlMode) == offsetof(EP, cacheControlMode) &&
	      FAKE_RP_ENABLE_CACHE_MODE_OFFSET == offsetof(EP, cacheControlMode),
	      "cacheControlMode at %zu (gpuproj) and %u (double), the header's at %zu",
	      offsetof(struct rp_enable_134, cacheControlMode), FAKE_RP_ENABLE_CACHE_MODE_OFFSET,
	      offsetof(EP, cacheControlMode));
	CHECK(RP_ENABLE_134_STRUCT_SIZE == CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE &&
	      FAKE_RP_ENABLE_134_STRUCT_SIZE == CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
	      "Enable struct size %zu (gpuproj), %u (double), the header's %zu",
	      (size_t)RP_ENABLE_134_STRUCT_SIZE, FAKE_RP_ENABLE_134_STRUCT_SIZE,
	      (size_t)CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
	CHECK(sizeof(((EP *)0)->cacheControlMode) == sizeof(int32_t) &&
	      CUPTI_CACHE_CONTROL_MODE_NONE == RP_CACHE_CONTROL_NONE &&
	      CUPTI_CACHE_CONTROL_MODE_ALL == RP_CACHE_CONTROL_ALL,
	      "CUpti_CacheControl_Mode differs from gpuproj's (4 bytes, NONE 0, ALL 1)");
	CHECK(api >= RP_ENABLE_CACHE_API && api >= FAKE_CACHE_CONTROL_API,
	      "API %u has cacheControlMode, gpuproj sends it from %u, the double takes it from %u",
	      api, RP_ENABLE_CACHE_API, FAKE_CACHE_CONTROL_API);
#else
	CHECK(offsetof(struct rp_enable_134, cacheControlMode) ==
	      CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
	      "13.4's cacheControlMode would not follow this release's struct (size %zu)",
	      (size_t)CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
	CHECK(api < RP_ENABLE_CACHE_API && api < FAKE_CACHE_CONTROL_API,
	      "API %u has no cacheControlMode, but gpuproj would send it from %u",
	      api, RP_ENABLE_CACHE_API);
#endif
	/* (f) */
	{
		const struct fake_other_record *o;

		TIMELINE_CHECKS
	}
	/* (d) */
#ifdef EXPECT_GA
	CHECK((api == 130000) == EXPECT_GA, "CUPTI_API_VERSION %u %s 13.0 GA's 130000", api,
	      EXPECT_GA ? "is not" : "is");
	CHECK(cupti_is_13_0_ga(api) == EXPECT_GA, "cupti_is_13_0_ga(%u) is %d, expected %d", api,
	      (int)cupti_is_13_0_ga(api), EXPECT_GA);
#endif
	printf("  API %u, " KREC_NAME ", %zu bytes, gpuproj: %s, double: %zu bytes%s%s\n", api,
	       sizeof(K), ours ? ours : "refused", f ? f->size : 0,
	       cupti_is_13_0_ga(api) ? ", 13.0 GA" : "", fails ? "" : ": ok");
	return fails ? 1 : 0;
}
"""


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root, cuda_inc, cupti_inc = sys.argv[1:4]
    cc = sys.argv[4:] or shlex.split(os.environ.get("CC", "cc"))
    cache = os.environ.get("GPUPROJ_CUPTI_HEADERS_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "gpuproj", "cupti-headers")
    fetched = sorted((d for d in glob.glob(os.path.join(cache, "*", "include"))
                      if os.path.exists(os.path.join(d, "cupti_activity.h"))),
                     key=lambda d: [int(x) for x in re.findall(r"\d+", d.split(os.sep)[-2])])
    if not fetched:
        print(f"SKIP: no CUPTI release headers in {cache} (scripts/setup-deps.sh fetches them "
              "from NVIDIA's nvidia-cuda-cupti wheels)")
        return 77
    releases = [(installed_version(cupti_inc) or "installed", cupti_inc, True)]
    releases += [(d.split(os.sep)[-2], d, False) for d in fetched]

    _, _, ref_text = kernel_record_name(os.path.join(cupti_inc, "cupti_activity.h"))
    ref = struct_members(ref_text, "CUpti_ActivityKernel10")
    if not ref or "isDeviceLaunched" not in ref:
        print(f"FAIL: no CUpti_ActivityKernel10 with isDeviceLaunched in {cupti_inc}")
        return 1
    shared = ref[:ref.index("isDeviceLaunched") + 1]

    failed, ga_seen, update_seen = 0, False, False
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "check.c")
        for label, inc, installed in releases:
            activity_h = os.path.join(inc, "cupti_activity.h")
            print(f"{label} ({inc}):")
            name, newest, text = kernel_record_name(activity_h)
            api = api_version(os.path.join(inc, "cupti_version.h"))
            problems = []
            if not name:
                problems.append("no record named for CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")
            elif newest is not None and name != f"CUpti_ActivityKernel{newest}":
                problems.append(f"CONCURRENT_KERNEL is {name} but the header defines "
                                f"CUpti_ActivityKernel{newest}")
            members = struct_members(text, name) if name else None
            if name and not members:
                problems.append(f"no struct {name}")
            if members:
                if members[:len(shared)] != shared:
                    problems.append(f"{name}'s members through isDeviceLaunched differ from "
                                    "CUpti_ActivityKernel10's")
                tail = members[len(shared):]
                if tail[:1] == ["padding3"]:
                    tail = tail[1:]
                unknown = [m for m in tail if m not in APPENDED]
                if unknown:
                    problems.append(f"{name} appends {', '.join(unknown)}, which "
                                    "tests/fake/fake-records.h does not write")
            if members and not problems:
                appended = [m for m in members[len(shared):] if not m.startswith("padding")]
                print(f"  {name} appends to Kernel10's members: {', '.join(appended) or 'nothing'}")
            if api is None:
                problems.append("no CUPTI_API_VERSION in cupti_version.h")
            for p in problems:
                print(f"  FAIL: {p}")
            if problems:
                failed += 1
                continue
            checks = " ".join(
                (f"FAKE_AT({field}, {member})" if member in members else
                 f"FAKE_NONE({field}, {member})") for member, field in FAKE_MEMBERS.items())
            tl_checks, tl_names = timeline_checks(text)
            if tl_checks is None:
                print(f"  FAIL: {tl_names}")
                failed += 1
                continue
            print(f"  whole-run records: {tl_names}")
            with open(src, "w") as f:
                f.write(CHECKER.replace("FAKE_CHECKS", checks).replace("TIMELINE_CHECKS",
                                                                       tl_checks))
            flags = [f"-DKREC={name}", f'-DKREC_NAME="{name}"']
            with open(os.path.join(inc, "cupti_range_profiler.h"), errors="replace") as rh:
                if "cacheControlMode" in rh.read():
                    flags.append("-DHAS_CACHE_CONTROL")
            ga_known = not installed or label != "installed"
            if label.startswith("13.0.") and ga_known:
                flags.append(f"-DEXPECT_GA={1 if label == GA_WHEEL else 0}")
                ga_seen |= label == GA_WHEEL
                update_seen |= label != GA_WHEEL
            exe = os.path.join(tmp, "check")
            cmd = cc + ["-std=c11", "-Wall", "-o", exe, src, "-I", inc, "-I", cuda_inc,
                        "-I", os.path.join(root, "inject", "cupti"), "-I", os.path.join(root, "tests", "fake")] + flags
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"  FAIL: the checker does not compile against this header:\n{r.stderr}")
                failed += 1
                continue
            r = subprocess.run([exe], capture_output=True, text=True)
            sys.stdout.write(r.stdout)
            if r.returncode != 0:
                failed += 1
    if not (ga_seen and update_seen):
        print(f"note: (d) needs headers of 13.0 GA ({GA_WHEEL}) and of a later 13.0 release; "
              f"had GA: {ga_seen}, later: {update_seen}")
    print(f"{len(releases) - failed} of {len(releases)} CUPTI releases match")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
