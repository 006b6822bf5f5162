# SPDX-License-Identifier: MIT
# msvc_dll.sh: sourced by tests/cross/windows.sh and
# tests/cli/symbolize_pdb.sh: a DLL built as MSVC builds, and its id.
#
# msvc_dll DIR SOURCE NAME [DEFINE]: DIR/NAME.dll and DIR/NAME.pdb from
#   SOURCE by clang in MSVC mode (/Z7: CodeView, no DWARF) and lld-link
#   (/DEBUG /PDB), no C runtime (/NODEFAULTLIB, /NOENTRY); the PDB's path
#   recorded as a Windows build records it, C:\build\NAME.pdb
#   (/PDBALTPATH: not on this machine, so that a reader finds the PDB
#   beside the image or by name).  Output in DIR/build.log.
# codeview_id IMAGE: the PE image's CodeView id as llvm-readobj reads
#   it, in the form the collector's header writes (accounting/header.c):
#   the GUID (Data1..3 little-endian, then Data4's bytes), then its age,
#   upper-case hex.
msvc_dll() {
  # shellcheck disable=SC2086
  (cd "$1" && clang --driver-mode=cl --target=x86_64-pc-windows-msvc /c \
     /Z7 /O1 /Oy- /GS- ${4:-} "/Fo$3.obj" -- "$2" &&
   lld-link /DLL /NOENTRY /NODEFAULTLIB /DEBUG "/PDB:$3.pdb" \
     "/PDBALTPATH:C:\\build\\$3.pdb" "/OUT:$3.dll" "$3.obj") \
    > "$1/build.log" 2>&1
}
codeview_id() {
  llvm-readobj --coff-debug-directory "$1" | awk '
    /PDBGUID:/ { gsub(/[()]/, ""); for (i = 2; i <= 17; i++) g[i - 1] = $i }
    /PDBAge:/ { age = $2 }
    END { split("4 3 2 1 6 5 8 7 9 10 11 12 13 14 15 16", o, " ")
          for (i = 1; i <= 16; i++) printf "%s", toupper(g[o[i]])
          printf "%X\n", age }'
}
