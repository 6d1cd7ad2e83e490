#!/bin/sh
# install_file.sh SRC DEST [MODE]: puts a copy of SRC at DEST by writing a
# new file beside DEST and renaming it into place. A process that has the
# old DEST mapped (a loaded shared library) keeps its own copy; writing
# over DEST in place, as `cp` does, changes the pages under it and kills
# it with SIGBUS.
set -eu
src=$1 dest=$2 mode=${3:-644}
tmp="$dest.new.$$"
trap 'rm -f "$tmp"' EXIT
cp "$src" "$tmp"
chmod "$mode" "$tmp"
mv -f "$tmp" "$dest"
trap - EXIT
