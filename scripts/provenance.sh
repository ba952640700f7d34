# Sourced by the scripts that record measurements. A result in results/ is
# only worth keeping if the commit in its rows is the code that produced
# it, so they refuse to write there from a tree with uncommitted changes;
# --allow-dirty overrides, and then every row's commit column ends in
# "-dirty" (git describe --dirty, compiled into xfbench) and says so.
#
# xf_provenance TOP DEST ALLOW_DIRTY: exit 2 with one line if DEST is under
# TOP/results, the tree is dirty and ALLOW_DIRTY is not 1.
xf_provenance() {
    case "$2" in
    /*) set -- "$1" "$2" "$3" ;;
    *) set -- "$1" "$PWD/$2" "$3" ;;
    esac
    case "$2" in
    "$1"/results/*) ;;
    *) return 0 ;;
    esac
    [ "$3" = 1 ] && return 0
    if [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        echo "$(basename "$0"): the tree has uncommitted changes; commit them before recording into results/," \
            "or pass --allow-dirty (the rows' commit then ends in -dirty)" >&2
        exit 2
    fi
}
