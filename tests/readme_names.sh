#!/bin/sh
# The README names no stage, family or variant that `xfbench list` lacks,
# and omits none it has: its Stages table against the list's stages, its
# Families table (first column; the backquoted names of its variants
# column) against the list's variants and their families. A family meson
# did not build here (NOT_BUILT, comma list) may be named without being
# listed.
# Usage: readme_names.sh README.md path/to/xfbench NOT_BUILT
set -u
readme=$1 bin=$2 not_built=,$3,
fail() { echo "FAILED: $*"; exit 1; }
# The rows of the table under "## $1": its first column, or (with $2) the
# backquoted names in column $2.
table() {
    awk -v h="## $1" -v col="${2:-2}" '
        $0 == h { on = 1; next } /^## / { on = 0 }
        on && /^\| / && !/^\|---/ { n++; if (n > 1) { split($0, c, "|"); print c[col] } }' "$readme" |
        if [ -n "${2:-}" ]; then grep -o '`[^`]*`' | tr -d '`'; else tr -d ' `'; fi
}
list=$("$bin" list | awk 'NR > 1 { print $1, $2 }')
stages=$(printf '%s\n' "$list" | awk '{ print $1 }' | sort -u)
variants=$(printf '%s\n' "$list" | awk '$2 != "best" { print $2 }' | sort -u)
families=$(printf '%s\n' "$variants" | sed 's/-.*//' | sort -u)
readme_stages=$(table Stages | sort -u)
readme_families=$(table Families | sort -u)
readme_variants=$(table Families 3 | sort -u)
[ -n "$readme_stages" ] && [ -n "$readme_families" ] && [ -n "$readme_variants" ] ||
    fail "could not read the Stages and Families tables of $readme"
[ "$readme_stages" = "$stages" ] ||
    fail "README stages differ from xfbench list's: $(printf '%s\n' "$readme_stages" | tr '\n' ' ') vs $(printf '%s\n' "$stages" | tr '\n' ' ')"
for f in $readme_families; do
    printf '%s\n' "$families" | grep -qx "$f" || case $not_built in *,$f,*) ;; *) fail "README names family $f, not in xfbench list" ;; esac
done
for f in $families; do
    printf '%s\n' "$readme_families" | grep -qx "$f" || fail "family $f of xfbench list is not in the README"
done
for v in $readme_variants; do
    printf '%s\n' "$variants" | grep -qx "$v" || case $not_built in *,${v%%-*},*) ;; *) fail "README names variant $v, not in xfbench list" ;; esac
done
for v in $variants; do
    printf '%s\n' "$readme_variants" | grep -qx "$v" || fail "variant $v of xfbench list is not in the README"
done
echo "readme-names: $(printf '%s\n' "$readme_stages" | wc -l) stages, $(printf '%s\n' "$readme_families" | wc -l) families, $(printf '%s\n' "$readme_variants" | wc -l) variants, as xfbench list has them"
