// bench_ref: the reference's side of tools/bench — onnx's own C++ OnnxParser and graph
// printer (Debian libonnx-dev 1.12), measured exactly like bench_parse measures libonnxtxt.
//
//   bench_ref cold FILE          one parse into a ModelProto in this fresh process
//   bench_ref warm FILE N        N parses in one process; best and median
//   bench_ref to-binary IN OUT   parse, SerializeToString, write OUT (timed from outside by
//                                `bench_parse spawn`, like `onnxtxt to-binary`)
//   bench_ref print FILE         FILE is a binary .onnx: ParseFromString (not timed), then
//                                one timed `std::ostringstream os; os << model.graph();`
//                                (onnx/defs/printer.h; 1.12 prints graphs, not models, and
//                                drops initializers)
//   bench_ref print-warm FILE N  N timed prints in one process; best and median
//   bench_ref to-text IN OUT     read, ParseFromString, print the graph, write OUT, fsync
//                                (timed from outside, like `onnxtxt to-text`)
//
// Build: c++ -O2 -DONNX_ML=1 -DONNX_NAMESPACE=onnx bench_ref.cc -lonnx -lonnx_proto -lprotobuf
// Output: "key=value" lines (seconds, bytes, KiB). Timed: constructing the OnnxParser (its
// const char* constructor runs strlen) and Parse(ModelProto&); not timed: reading the file,
// destroying the ModelProto; for print, the printing into the ostringstream (not reading,
// not ParseFromString, not os.str()). A parse error or an exception (1.12 throws from std::stof,
// std::stoll, ... on some inputs) exits non-zero with the message.
#include <onnx/defs/parser.h>
#include <onnx/defs/printer.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double now() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "bench_ref: %s\n", msg.c_str());
  std::exit(1);
}

std::string slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    die(std::string("cannot open ") + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One timed parse into model; exits with the parser's message if it fails.
double parse_once(const char* path, const std::string& text, onnx::ModelProto& model) {
  double t0 = now(), t;
  try {
    onnx::OnnxParser parser(text.c_str());
    auto status = parser.Parse(model);
    t = now() - t0;
    if (!status.IsOK())
      die(std::string("parse failed: ") + path + ": " + status.ErrorMessage());
  } catch (const std::exception& e) {
    die(std::string("parse threw: ") + path + ": " + e.what());
  }
  return t;
}

long baseline_kb;  // peak RSS before the input was read

void print_rusage() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("baseline_kb=%ld\nmaxrss_kb=%ld\nminflt=%ld\nmajflt=%ld\n", baseline_kb, ru.ru_maxrss, ru.ru_minflt,
              ru.ru_majflt);
}

int cmd_cold(const char* path) {
  std::string text = slurp(path);
  auto* model = new onnx::ModelProto;
  double t = parse_once(path, text, *model);
  std::printf("bytes=%zu\nnodes=%d\nparse_s=%.9f\n", text.size(), model->graph().node_size(), t);
  print_rusage();
  delete model;
  return 0;
}

int cmd_warm(const char* path, int n) {
  std::string text = slurp(path);
  std::vector<double> t;
  int nodes = 0;
  for (int i = 0; i < n; i++) {
    auto* model = new onnx::ModelProto;
    t.push_back(parse_once(path, text, *model));
    nodes = model->graph().node_size();
    delete model;
  }
  std::sort(t.begin(), t.end());
  double med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  std::printf("bytes=%zu\nnodes=%d\nruns=%d\nbest_s=%.9f\nmedian_s=%.9f\n", text.size(), nodes, n, t[0], med);
  print_rusage();
  return 0;
}

int cmd_to_binary(const char* in, const char* out) {
  std::string text = slurp(in);
  onnx::ModelProto model;
  parse_once(in, text, model);
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    die("SerializeToString failed");
  std::FILE* f = std::fopen(out, "wb");
  // fflush + fsync like onnxtxt's atomic write, so both to-binary figures include them.
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fflush(f) != 0 ||
      fsync(fileno(f)) != 0 || std::fclose(f) != 0)
    die(std::string("cannot write ") + out);
  return 0;
}

// Reads the binary model at path (not timed).
void read_binary(const char* path, onnx::ModelProto& model, size_t* in_bytes) {
  std::string data = slurp(path);
  *in_bytes = data.size();
  if (!model.ParseFromString(data))
    die(std::string("ParseFromString failed: ") + path);
}

// One timed print of the model's graph; the text's length goes to *len.
double print_once(const onnx::ModelProto& model, size_t* len, std::string* text = nullptr) {
  double t0 = now();
  std::ostringstream os;
  os << model.graph();
  double t = now() - t0;
  if (!os)
    die("printing failed");
  if (text)
    *text = os.str();
  *len = static_cast<size_t>(os.tellp());
  return t;
}

int cmd_print(const char* path) {
  onnx::ModelProto model;
  size_t in_bytes, len;
  read_binary(path, model, &in_bytes);
  double t = print_once(model, &len);
  std::printf("in_bytes=%zu\nbytes=%zu\nnodes=%d\ninitializers=%d\nprint_s=%.9f\n", in_bytes, len,
              model.graph().node_size(), model.graph().initializer_size(), t);
  print_rusage();
  return 0;
}

int cmd_print_warm(const char* path, int n) {
  onnx::ModelProto model;
  size_t in_bytes, len = 0;
  read_binary(path, model, &in_bytes);
  std::vector<double> t;
  for (int i = 0; i < n; i++)
    t.push_back(print_once(model, &len));
  std::sort(t.begin(), t.end());
  double med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  std::printf("in_bytes=%zu\nbytes=%zu\nnodes=%d\nruns=%d\nbest_s=%.9f\nmedian_s=%.9f\n", in_bytes, len,
              model.graph().node_size(), n, t[0], med);
  print_rusage();
  return 0;
}

int cmd_to_text(const char* in, const char* out) {
  onnx::ModelProto model;
  size_t in_bytes, len;
  std::string text;
  read_binary(in, model, &in_bytes);
  print_once(model, &len, &text);
  std::FILE* f = std::fopen(out, "wb");
  // fflush + fsync like onnxtxt's atomic write, so both to-text figures include them.
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0 ||
      fsync(fileno(f)) != 0 || std::fclose(f) != 0)
    die(std::string("cannot write ") + out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  baseline_kb = ru.ru_maxrss;
  std::string mode = argc > 1 ? argv[1] : "";
  if (argc == 3 && mode == "cold")
    return cmd_cold(argv[2]);
  if (argc == 4 && mode == "warm") {
    int n = std::atoi(argv[3]);
    if (n < 1)
      die("expected a positive count");
    return cmd_warm(argv[2], n);
  }
  if (argc == 4 && mode == "to-binary")
    return cmd_to_binary(argv[2], argv[3]);
  if (argc == 3 && mode == "print")
    return cmd_print(argv[2]);
  if (argc == 4 && mode == "print-warm") {
    int n = std::atoi(argv[3]);
    if (n < 1)
      die("expected a positive count");
    return cmd_print_warm(argv[2], n);
  }
  if (argc == 4 && mode == "to-text")
    return cmd_to_text(argv[2], argv[3]);
  std::fprintf(stderr,
               "usage: bench_ref cold FILE | warm FILE N | to-binary IN OUT | print FILE | print-warm FILE N |\n"
               "       to-text IN OUT\n");
  return 2;
}
