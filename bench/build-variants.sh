#!/bin/sh
# SPDX-License-Identifier: MIT
# build-variants.sh: build the three collectors the benchmarks compare.
#
#   bench/build-variants.sh [OUTDIR]        (default: _build/bench)
#
# From the one pinned tarball (bdwgc/PIN), configured with the upstream
# arguments gcacc's own build gave bdwgc (read back from its
# bdwgc/upstream/config.status: --with-libatomic-ops=yes, default threads,
# and whatever CC, CFLAGS, ... were given to ./configure), plus
# --disable-shared (static libraries: no PLT or loader noise) and
# --enable-single-obj-compilation (libgc compiled as one unit, extra/gc.c,
# as gcacc's own shared build is by default):
#
#   OUTDIR/unpatched/     pristine bdwgc 8.2.2, no patches
#   OUTDIR/patched/       our patch series, accounting compiled in
#   OUTDIR/compiled-out/  our patch series, CPPFLAGS+=-DGC_ACC_DISABLE
#   OUTDIR/unpatched-notl/, OUTDIR/patched-notl/
#                         the first two with --disable-thread-local-alloc,
#                         as il2cpp builds the collector
#
# Each has libgc (.libs/libgc.a), upstream's own gctest (`make gctest`,
# upstream's compile flags), and bench/gameloop.c linked against it
# (gameloop), and gameloop-klass (gameloop.c with -DGAMELOOP_KLASS: a
# class pointer in word 0 of every object, as IL2CPP); patched/ and
# compiled-out/ also gameloop-typed (gameloop.c with -DGAMELOOP_TYPES) and
# manysites (bench/manysites.c) and censustime (bench/censustime.c);
# every variant anchorloop (bench/anchorloop.c).  gameloop-klass, gameloop-typed and
# manysites are built with -fno-omit-frame-pointer.  Both source trees (OUTDIR/src/{unpatched,patched}) get
# `autoreconf -fi`, so all three use the same autotools.  Sources are
# unpacked and configured again only when their inputs change (PIN, patch
# series, configure arguments: OUTDIR/*/.bench-stamp); otherwise `make` just
# brings each build up to date (accounting/ is linked in, so edits there
# rebuild the patched variants).
#
# Environment: BDWGC_TARBALL (else ~/.cache/gcacc, as bdwgc/fetch.sh),
# BENCH_GCACC_TOP (take accounting/ and include/gc_accounting.h from that
# tree rather than this one), BENCH_UPSTREAM_CONFIG (the config.status to
# copy arguments from; default OUTDIR/../bdwgc/upstream/config.status; when
# there is none, just --with-libatomic-ops=yes), BENCH_JOBS (make -j,
# default nproc).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$top/_build/bench}
mkdir -p "$out"
out=$(cd "$out" && pwd)

die() {
  printf 'bench/build-variants.sh: error: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
say() { printf 'bench: %s\n' "$*"; }

# A make run from inside `make bench` must not inherit its flags or jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES 2>/dev/null || true
jobs=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 2)}

pin() { sed -n "s/^$1=//p" "$top/bdwgc/PIN"; }
version=$(pin version)
tarball=$(pin tarball)
sha256=$(pin sha256)
[ -n "$version" ] && [ -n "$tarball" ] && [ -n "$sha256" ] ||
  die "bdwgc/PIN lacks version=, tarball= or sha256="

# ---- the tarball: as bdwgc/fetch.sh finds it ------------------------------
cache_dir=${GCACC_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gcacc}
src=${BDWGC_TARBALL:-$cache_dir/$tarball}
[ -r "$src" ] || die "no readable tarball at $src" \
  "run ./configure (bdwgc/fetch.sh caches it), or set BDWGC_TARBALL=/path/$tarball"
got=$(sha256sum "$src" | cut -d' ' -f1)
[ "$got" = "$sha256" ] || die "$src: sha256 mismatch" \
  "expected $sha256 (bdwgc/PIN)" "got      $got"

series="$top/bdwgc/patches/series"
# Where accounting/ and include/gc_accounting.h come from: this checkout,
# unless BENCH_GCACC_TOP names another (e.g. a `git worktree` of a commit).
acc_top=$(cd "${BENCH_GCACC_TOP:-$top}" && pwd)
patches=$(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$series")

# ---- source trees ---------------------------------------------------------
# prepare NAME WITH_PATCHES: unpack into $out/src/NAME unless its stamp
# matches; apply the series and link accounting/ when asked; autoreconf.
prepare() {
  name=$1 with=$2
  tree="$out/src/$name"
  stamp=$( { echo "$sha256 $with"; autoreconf --version | head -1
             if [ "$with" = yes ]; then
               echo "$acc_top"
               cat "$series"
               for p in $patches; do cat "$top/bdwgc/patches/$p"; done
             fi; } | sha256sum | cut -d' ' -f1)
  if [ -f "$tree/.bench-stamp" ] && [ "$(cat "$tree/.bench-stamp")" = "$stamp" ]
  then return 0; fi
  say "unpacking $tarball into src/$name"
  rm -rf "$tree" "$tree.tmp"
  mkdir -p "$tree.tmp"
  tar -xzf "$src" -C "$tree.tmp"
  mv "$tree.tmp/gc-$version" "$tree"
  rmdir "$tree.tmp"
  if [ "$with" = yes ]; then
    for p in $patches; do
      (cd "$tree" && patch -p1 --forward --batch --quiet \
         --no-backup-if-mismatch -r - < "$top/bdwgc/patches/$p") ||
        die "bdwgc/patches/$p does not apply (see bdwgc/fetch.sh)"
    done
    # As fetch.sh does, but absolute: the tree lives outside bdwgc/.
    ln -s "$acc_top/accounting" "$tree/accounting"
    ln -s "$acc_top/include/gc_accounting.h" "$tree/include/gc_accounting.h"
    # Unity's API (patch 0003), linked in as fetch.sh links it.
    if [ -d "$acc_top/unity" ]; then
      ln -s "$acc_top/unity" "$tree/unity"
      for h in gc_unity.h gc_vector.h gcacc_il2cpp.h; do
        ln -s "$acc_top/unity/$h" "$tree/include/$h"
      done
    fi
  fi
  say "autoreconf in src/$name"
  (cd "$tree" && autoreconf -fi > autoreconf.log 2>&1) ||
    { tail -20 "$tree/autoreconf.log" >&2; die "autoreconf failed in $tree"; }
  # (Each build's stamp covers this one: its builds are configured anew.)
  echo "$stamp" > "$tree/.bench-stamp"
}

prepare unpatched no
prepare patched yes

# ---- configure arguments: those of gcacc's own bdwgc build ----------------
# Without the ones that name its tree or install place, and with
# CPPFLAGS split off: each variant adds its own (-DGC_ACC_DISABLE or not).
upstream_config=${BENCH_UPSTREAM_CONFIG:-$out/../bdwgc/upstream/config.status}
base_args="'--with-libatomic-ops=yes'"
base_cppflags=""
if [ -x "$upstream_config" ]; then
  cfg=$("$upstream_config" --config) || die "$upstream_config --config failed"
  eval "set -- $cfg"
  base_args=""
  for a in "$@"; do
    case $a in
      --disable-option-checking|--prefix=*|--cache-file=*|--srcdir=*) ;;
      --enable-shared|--disable-shared|--enable-static|--disable-static) ;;
      CPPFLAGS=*) base_cppflags=${a#CPPFLAGS=} ;;
      *) base_args="$base_args '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'" ;;
    esac
  done
  # --disable-accounting puts this in; the variants choose for themselves.
  base_cppflags=$(printf '%s' "$base_cppflags" | sed 's/-DGC_ACC_DISABLE//g')
else
  say "no $upstream_config: configuring with --with-libatomic-ops=yes only"
fi

# ---- builds ---------------------------------------------------------------
# build NAME SRC CPPFLAGS [CONFIGURE-ARG]: configure (when its stamp
# differs), make libgc, gctest and gameloop.
build() {
  name=$1 tree="$out/src/$2" cppflags=$3 extra=${4:-}
  b="$out/$name"
  eval "set -- $base_args $extra"
  # --enable-single-obj-compilation: libgc as one translation unit
  # (extra/gc.c), as gcacc's own (shared) build compiles it by default;
  # --disable-shared alone would switch upstream to one object per file.
  set -- "$@" --disable-shared --enable-single-obj-compilation \
    "CPPFLAGS=$(echo $base_cppflags $cppflags)"
  stamp=$(printf '%s\n' "$(cat "$tree/.bench-stamp")" "$@" | sha256sum |
          cut -d' ' -f1)
  if ! [ -f "$b/.bench-stamp" ] || [ "$(cat "$b/.bench-stamp")" != "$stamp" ]
  then
    say "configuring $name: $*"
    rm -rf "$b"
    mkdir -p "$b"
    (cd "$b" && "$tree/configure" "$@" > configure.log 2>&1) ||
      { tail -30 "$b/configure.log" >&2; die "configure failed for $name"; }
    echo "$stamp" > "$b/.bench-stamp"
  fi
  say "building $name (libgc, gctest)"
  (cd "$b" && make -j"$jobs" libgc.la gctest > make.log 2>&1) ||
    { tail -30 "$b/make.log" >&2; die "make failed for $name (see $b/make.log)"; }
  # gameloop: compiled and linked with the variant's own Makefile variables
  # and libtool, as its gctest is (same compiler, flags and libraries).
  # The patched variants also get gameloop-typed (-DGAMELOOP_TYPES: every
  # allocation typed with GC_acc_set_next_type) and manysites (20,000
  # callsites); both with frame pointers, as an embedder that wants
  # GC_ACC_STACKS would build (the fp unwinder walks them).
  # Every variant also gets gameloop-klass (-DGAMELOOP_KLASS: a class
  # pointer in word 0 of every object, as IL2CPP's objects), built with
  # frame pointers everywhere, unpatched too: its own baseline.
  # And gameloop-gcj (-DGAMELOOP_GCJ: the same, with every object that
  # holds pointers made by GC_gcj_malloc, as IL2CPP makes them).
  targets="gameloop allocloop anchorloop gameloop-klass gameloop-gcj"
  case $name in
    unpatched|unpatched-notl) ;;
    *) targets="$targets gameloop-typed manysites censustime" ;;
  esac
  (cd "$b" && make -s -f Makefile -f - "BENCH_SRC=$here" $targets \
     >> make.log 2>&1 <<'EOF'
gameloop$(EXEEXT): $(BENCH_SRC)/gameloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -o $@ $(BENCH_SRC)/gameloop.c libgc.la $(THREADDLLIBS)
allocloop$(EXEEXT): $(BENCH_SRC)/allocloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -o $@ $(BENCH_SRC)/allocloop.c libgc.la $(THREADDLLIBS)
anchorloop$(EXEEXT): $(BENCH_SRC)/anchorloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -o $@ $(BENCH_SRC)/anchorloop.c libgc.la $(THREADDLLIBS)
gameloop-klass$(EXEEXT): $(BENCH_SRC)/gameloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -DGAMELOOP_KLASS -fno-omit-frame-pointer \
	  -o $@ $(BENCH_SRC)/gameloop.c libgc.la $(THREADDLLIBS)
gameloop-gcj$(EXEEXT): $(BENCH_SRC)/gameloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -DGAMELOOP_GCJ -fno-omit-frame-pointer \
	  -o $@ $(BENCH_SRC)/gameloop.c libgc.la $(THREADDLLIBS)
gameloop-typed$(EXEEXT): $(BENCH_SRC)/gameloop.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -DGAMELOOP_TYPES -fno-omit-frame-pointer \
	  -o $@ $(BENCH_SRC)/gameloop.c libgc.la $(THREADDLLIBS)
censustime$(EXEEXT): $(BENCH_SRC)/censustime.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -o $@ $(BENCH_SRC)/censustime.c libgc.la $(THREADDLLIBS)
manysites$(EXEEXT): $(BENCH_SRC)/manysites.c libgc.la
	$(LIBTOOL) --quiet --tag=CC --mode=link $(COMPILE) -DGC_THREADS \
	  -fno-omit-frame-pointer \
	  -o $@ $(BENCH_SRC)/manysites.c libgc.la $(THREADDLLIBS)
EOF
  ) || { tail -20 "$b/make.log" >&2; die "cannot build $targets for $name"; }
}

build unpatched unpatched ""
build patched patched ""
build compiled-out patched "-DGC_ACC_DISABLE"
# As il2cpp builds the collector: no thread-local allocation, so every
# object takes the global path (GC_malloc_kind_global and its hook).
build unpatched-notl unpatched "" --disable-thread-local-alloc
build patched-notl patched "" --disable-thread-local-alloc

# The anchor loop on malloc (bench/anchor-ratios.sh preloads jemalloc and
# tcmalloc into it), with the compiler and flags the variants got.
if ! [ -x "$out/anchorloop-malloc" ] || [ "$here/anchorloop.c" -nt "$out/anchorloop-malloc" ]; then
  ${CC:-cc} -g -O2 -fno-omit-frame-pointer -DANCHOR_MALLOC \
    -o "$out/anchorloop-malloc" "$here/anchorloop.c" ||
    die "cannot build bench/anchorloop.c with -DANCHOR_MALLOC"
fi

# The process runner the ratio script uses.
if ! [ -x "$out/runone" ] || [ "$here/runone.c" -nt "$out/runone" ]; then
  cc -O2 -o "$out/runone" "$here/runone.c" ||
    die "cannot build bench/runone.c"
fi
say "variants ready in $out"
