# Extracts the code snippets of the docs and of public headers' usage
# comments into C++ for tests/docs/snippets_test.sh (issue 26 item 1).
#
# Markdown (*.md): every ```cpp block must follow a tag line
#   <!-- snippet: body -->   statements: wrapped in a function returning
#                            absl::Status (so `return status;` works)
#   <!-- snippet: file -->   a translation unit's top level (types,
#                            functions, main)
#   <!-- snippet: skip REASON -->  not compiled, with a reason
# An untagged ```cpp block is an error: a snippet nobody compiles.
#
# Headers (*.h): a usage comment is a `// clang-format off` ... `// clang-format
# on` block of comment lines (STYLE.md §16); its text minus the leading `//`
# is a body snippet, or a file snippet when its first line says
# `// snippet: file`. Header snippets are written as from inside the
# library's namespaces, so they get `using namespace` of xdsfed and its
# modules' namespaces.
#
# Output: -v inc=FILE  the snippets' #include lines (hoisted to the top)
#         -v out=FILE  one `namespace snippet_N { ... }` per snippet, each
#                      with a #line directive, so a compiler error names
#                      the doc or header line
#         -v err=FILE  one line per untagged block
#         -v root=DIR  stripped from file names in #line and errors
function begin_snippet(file, line, mode, in_header) {
  n++
  snippet_mode = mode
  printf "namespace snippet_%d {\n", n > out
  if (in_header) {
    print "using namespace ::xdsfed;" > out
    print "using namespace ::xdsfed::channel;" > out
    print "using namespace ::xdsfed::server;" > out
  }
  if (mode == "body") print "[[maybe_unused]] absl::Status Run() {" > out
  printf "#line %d \"%s\"\n", line, file > out
}
function end_snippet() {
  if (snippet_mode == "body") print "return absl::OkStatus();\n}" > out
  print "}" > out
}
function emit(text) {
  if (text ~ /^[ \t]*#[ \t]*include/) {
    print text > inc
    print "" > out  # keeps the #line numbering
  } else {
    print text > out
  }
}
FNR == 1 {
  display = FILENAME
  if (root != "" && index(display, root "/") == 1) {
    display = substr(display, length(root) + 2)
  }
  is_md = (FILENAME ~ /\.md$/)
  state = "text"
  tag = ""
  tag_line = -1
}
is_md {
  if (state == "text") {
    if ($0 ~ /^<!-- snippet: [a-z]+/) {
      tag = $0
      sub(/^<!-- snippet: /, "", tag)
      sub(/[^a-z].*$/, "", tag)
      tag_line = FNR
      next
    }
    if ($0 ~ /^ *```/) {
      lang = $0
      sub(/^ *```/, "", lang)
      sub(/[ \t].*$/, "", lang)
      if (lang != "cpp" && lang != "c++") {
        state = "other"
        next
      }
      if (tag_line != FNR - 1 || (tag != "body" && tag != "file" && tag != "skip")) {
        printf "%s:%d: a ```cpp block without <!-- snippet: body|file|skip --> on the line before\n", display, FNR > err
        state = "other"
        next
      }
      if (tag == "skip") {
        state = "other"
        next
      }
      begin_snippet(display, FNR + 1, tag, 0)
      state = "code"
      next
    }
    next
  }
  if ($0 ~ /^ *```[ \t]*$/) {
    if (state == "code") end_snippet()
    state = "text"
    next
  }
  if (state == "code") emit($0)
  next
}
{
  if (state == "text") {
    if ($0 ~ /^\/\/ clang-format off/) {
      state = "comment_block"
      begun = 0
    }
    next
  }
  if ($0 ~ /^\/\/ clang-format on/) {
    if (state == "comment_block" && begun) end_snippet()
    state = "text"
    next
  }
  if (state != "comment_block") next
  if ($0 !~ /^\/\//) {  # code, not a usage comment: not a snippet
    state = "code_block"
    next
  }
  line = $0
  sub(/^\/\//, "", line)
  if (!begun) {
    begun = 1
    if (line ~ /^[ \t]*\/\/ snippet: file/) {
      begin_snippet(display, FNR + 1, "file", 1)
      next
    }
    begin_snippet(display, FNR, "body", 1)
  }
  emit(line)
}
