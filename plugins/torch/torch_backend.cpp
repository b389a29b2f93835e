/*
 * torch_backend.cpp - the LibTorch backend plugin: TorchScript models (.pt
 * files written by torch.jit.save) behind mbench's C backend vtable.
 *
 * A small C++ shim: everything LibTorch stays in this file, the core stays
 * C.  Built as build/plugins/mbench_torch.so when libtorch-dev is installed
 * (Makefile), found by mb_backend_find("torch") or by a model's .pt
 * extension (src/backend/registry.c).
 *
 * Inputs: a TorchScript file does not record its input shapes, so they come
 * from the archive's extra file "mbench.json" (written with torch.jit.save's
 * _extra_files; format in docs/FRAMEWORKS.md), else from the forward
 * schema's argument names with an unknown rank (then --shape NAME=... is
 * needed).  Outputs: a Tensor, or a tuple/list of Tensors (nested ones are
 * flattened in order); their shapes are filled in after the first run.
 *
 * Options: threads=N (intra-op, 0 = LibTorch's default), inter-threads=N,
 * dtype=float32|float16|bfloat16 (the module's parameters and the floating
 * inputs are converted before timing; float16/bfloat16 outputs are widened
 * to float32 when fetched, exactly), profiling=0|1 (TorchScript's profiling
 * executor, on by default: it profiles the first calls and optimises
 * afterwards, so warm up with at least 2 iterations), optimize=0|1
 * (torch.jit.optimize_for_inference: freezing and operator fusion), dim:NAME=V
 * (accepted and ignored: a hint meant for ONNX Runtime).
 *
 * Every LibTorch call is inside try/catch: a c10::Error becomes an mb_status
 * with the first line of LibTorch's message (the rest is a C++ backtrace).
 */
#include "mbench_backend.h"
#include "../common/plugin_util.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/version.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace
{

/* The line of a LibTorch error that says what went wrong: the first one
 * (the rest is a backtrace), except for errors raised inside the
 * TorchScript interpreter, whose cause is the last "...Error: " line. */
std::string first_line(const std::exception &e)
{
    std::string s = e.what();
    if (s.rfind("The following operation failed", 0) == 0) {
        size_t at = s.rfind("Error: ");
        if (at != std::string::npos) {
            size_t start = s.rfind('\n', at);
            s = s.substr(start == std::string::npos ? 0 : start + 1);
        }
    }
    size_t nl = s.find('\n');
    if (nl != std::string::npos)
        s.resize(nl);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    return s;
}

struct DtypeMap {
    mb_dtype mb;
    at::ScalarType st;
};
const DtypeMap kDtypes[] = {
    {MB_DTYPE_FLOAT32, at::kFloat},     {MB_DTYPE_FLOAT16, at::kHalf},
    {MB_DTYPE_BFLOAT16, at::kBFloat16}, {MB_DTYPE_FLOAT64, at::kDouble},
    {MB_DTYPE_INT64, at::kLong},        {MB_DTYPE_INT32, at::kInt},
    {MB_DTYPE_INT16, at::kShort},       {MB_DTYPE_INT8, at::kChar},
    {MB_DTYPE_UINT8, at::kByte},        {MB_DTYPE_BOOL, at::kBool},
};

bool to_torch(mb_dtype t, at::ScalarType *st)
{
    for (const DtypeMap &m : kDtypes)
        if (m.mb == t) {
            *st = m.st;
            return true;
        }
    return false;
}

mb_dtype from_torch(at::ScalarType st)
{
    for (const DtypeMap &m : kDtypes)
        if (m.st == st)
            return m.mb;
    return MB_DTYPE_UNDEFINED;
}

/* The plugin is loaded into programs that link libmbench statically, whose
 * symbols it cannot see: dtype names come from plugins/common, and these
 * are PyTorch's own spellings of them. */
const mb_plugin_dtype_name kAliases[] = {{MB_DTYPE_FLOAT32, "float"},
                                         {MB_DTYPE_FLOAT16, "fp16"},
                                         {MB_DTYPE_FLOAT16, "half"},
                                         {MB_DTYPE_BFLOAT16, "bf16"},
                                         {MB_DTYPE_FLOAT32, "fp32"}};

const char *dtype_name(mb_dtype t)
{
    const char *n = mb_plugin_dtype_str(t);
    return n ? n : "undefined";
}

/* A dtype LibTorch has (kDtypes), by its canonical name or an alias. */
mb_dtype dtype_parse(const char *s)
{
    at::ScalarType st;
    mb_dtype t = mb_plugin_dtype_of(s);
    for (const auto &n : kAliases)
        if (t == MB_DTYPE_UNDEFINED && !strcmp(n.name, s))
            t = n.t;
    return to_torch(t, &st) ? t : MB_DTYPE_UNDEFINED;
}

bool is_float(mb_dtype t)
{
    return t == MB_DTYPE_FLOAT32 || t == MB_DTYPE_FLOAT16 ||
           t == MB_DTYPE_BFLOAT16 || t == MB_DTYPE_FLOAT64;
}

/* One input or output description with the strings it points into. */
struct Io {
    std::string name;
    std::vector<std::string> dim_names;
    mb_io_desc desc{};
    void fix()
    {
        desc.name = name.c_str();
        for (int i = 0; i < MB_MAX_RANK; i++)
            desc.dim_names[i] =
                i < (int)dim_names.size() ? dim_names[i].c_str() : "";
    }
};

struct State {
    std::string library_path;
};

struct Session {
    torch::jit::Module module;
    std::unique_ptr<torch::jit::Method> forward;
    std::vector<Io> in, out;
    std::vector<mb_io_desc> in_desc, out_desc;
    std::vector<c10::IValue> args;
    std::vector<at::Tensor> results;
    at::ScalarType dtype = at::kFloat;
    bool convert = false;   /* dtype differs from float32 */
    bool described = false; /* output shapes known (after a run) */
    std::string inputs_from;
    std::string model_path;
};

void publish(Session *s)
{
    s->in_desc.clear();
    s->out_desc.clear();
    for (Io &io : s->in) {
        io.fix();
        s->in_desc.push_back(io.desc);
    }
    for (Io &io : s->out) {
        io.fix();
        s->out_desc.push_back(io.desc);
    }
}

/* A small reader for the "mbench.json" extra file (format in
 * docs/FRAMEWORKS.md): LibTorch has no public JSON parser and the plugin
 * links nothing else.  parse_meta returns false with a reason when the text
 * is not what the plugin expects. */
struct Scan {
    const char *p;
    void ws()
    {
        while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
            p++;
    }
    bool lit(char c)
    {
        ws();
        if (*p != c)
            return false;
        p++;
        return true;
    }
    bool str(std::string *out)
    {
        ws();
        if (*p != '"')
            return false;
        p++;
        out->clear();
        while (*p && *p != '"') {
            if (*p == '\\' && p[1])
                p++;
            out->push_back(*p++);
        }
        if (*p != '"')
            return false;
        p++;
        return true;
    }
    bool num(long long *v)
    {
        ws();
        char *end;
        *v = strtoll(p, &end, 10);
        if (end == p)
            return false;
        p = end;
        return true;
    }
    /* Skips any JSON value (for keys this reader does not use). */
    bool skip()
    {
        ws();
        std::string tmp;
        long long n;
        if (*p == '"')
            return str(&tmp);
        if (*p == '[' || *p == '{') {
            char close = *p == '[' ? ']' : '}';
            p++;
            if (lit(close))
                return true;
            do {
                if (close == '}' && (!str(&tmp) || !lit(':')))
                    return false;
                if (!skip())
                    return false;
            } while (lit(','));
            return lit(close);
        }
        if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) {
            p += 4;
            return true;
        }
        if (!strncmp(p, "false", 5)) {
            p += 5;
            return true;
        }
        return num(&n) && (*p != '.' || (strtod(p, (char **)&p), true));
    }
};

/* One {"name":..., "dtype":..., "shape":[...]} entry. */
bool parse_io(Scan &sc, Io *io, std::string *why)
{
    if (!sc.lit('{'))
        return *why = "expected an object per input/output", false;
    io->desc.dtype = MB_DTYPE_FLOAT32;
    io->desc.rank = -1;
    if (sc.lit('}'))
        return true;
    do {
        std::string key, v;
        if (!sc.str(&key) || !sc.lit(':'))
            return *why = "expected a key", false;
        if (key == "name") {
            if (!sc.str(&io->name))
                return *why = "name must be a string", false;
        } else if (key == "dtype") {
            if (!sc.str(&v) || dtype_parse(v.c_str()) == MB_DTYPE_UNDEFINED)
                return *why = "dtype must be a type name such as "
                              "\"float32\"",
                       false;
            io->desc.dtype = dtype_parse(v.c_str());
        } else if (key == "shape") {
            if (!sc.lit('['))
                return *why = "shape must be a list", false;
            int r = 0;
            io->dim_names.clear();
            if (!sc.lit(']')) {
                do {
                    if (r >= MB_MAX_RANK)
                        return *why = "shape has too many axes", false;
                    long long d;
                    std::string sym;
                    sc.ws();
                    if (*sc.p == '"') {
                        sc.str(&sym);
                        d = -1;
                    } else if (!sc.num(&d) || d < 0) {
                        return *why = "a dimension must be a size >= 0 or a "
                                      "name",
                               false;
                    }
                    io->desc.dims[r] = d;
                    io->dim_names.push_back(sym);
                    r++;
                } while (sc.lit(','));
                if (!sc.lit(']'))
                    return *why = "unterminated shape", false;
            }
            io->desc.rank = r;
        } else if (!sc.skip()) {
            return *why = "bad value of key " + key, false;
        }
    } while (sc.lit(','));
    if (!sc.lit('}'))
        return *why = "unterminated object", false;
    return true;
}

bool parse_meta(const std::string &text, std::vector<Io> *in,
                std::vector<Io> *out, std::string *why)
{
    Scan sc{text.c_str()};
    if (!sc.lit('{'))
        return *why = "not a JSON object", false;
    if (sc.lit('}'))
        return true;
    do {
        std::string key;
        if (!sc.str(&key) || !sc.lit(':'))
            return *why = "expected a key", false;
        std::vector<Io> *dst = key == "inputs"    ? in
                               : key == "outputs" ? out
                                                  : nullptr;
        if (!dst) {
            if (!sc.skip())
                return *why = "bad value of key " + key, false;
            continue;
        }
        if (!sc.lit('['))
            return *why = key + " must be a list", false;
        if (sc.lit(']'))
            continue;
        do {
            Io io;
            if (!parse_io(sc, &io, why))
                return false;
            dst->push_back(io);
        } while (sc.lit(','));
        if (!sc.lit(']'))
            return *why = "unterminated list " + key, false;
    } while (sc.lit(','));
    return sc.lit('}') || (*why = "unterminated object", false);
}

/* Inputs and outputs from the forward schema when there is no metadata. */
void describe_from_schema(Session *s)
{
    const c10::FunctionSchema &fs = s->forward->function().getSchema();
    const auto &args = fs.arguments();
    for (size_t i = 1; i < args.size(); i++) { /* 0 is self */
        Io io;
        io.name = args[i].name();
        io.desc.dtype = MB_DTYPE_FLOAT32;
        io.desc.rank = -1;
        s->in.push_back(io);
    }
    if (!s->out.empty())
        return;
    const auto &rets = fs.returns();
    size_t n = 1;
    if (rets.size() == 1 && rets[0].type()->kind() == c10::TypeKind::TupleType)
        n = rets[0].type()->containedTypes().size();
    for (size_t i = 0; i < n; i++) {
        Io io;
        io.name = n == 1 ? "output" : "output" + std::to_string(i);
        io.desc.dtype = MB_DTYPE_FLOAT32;
        io.desc.rank = -1;
        s->out.push_back(io);
    }
}

/* Flattens a forward result into tensors; false when it holds something
 * else (a dict, a string, ...). */
bool flatten(const c10::IValue &v, std::vector<at::Tensor> *out)
{
    if (v.isTensor()) {
        out->push_back(v.toTensor());
        return true;
    }
    if (v.isTuple()) {
        for (const c10::IValue &e : v.toTupleRef().elements())
            if (!flatten(e, out))
                return false;
        return true;
    }
    if (v.isList()) {
        for (const c10::IValue &e : v.toListRef())
            if (!flatten(e, out))
                return false;
        return true;
    }
    return false;
}

int parse_int(const char *v, long lo, long hi, long *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

int t_load(const mb_backend_config *cfg, void **state, mb_err *err)
{
    (void)cfg;
    State *st = new (std::nothrow) State;
    if (!st)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    Dl_info di;
    if (dladdr((void *)&at::get_num_threads, &di) && di.dli_fname)
        st->library_path = di.dli_fname;
    *state = st;
    return MB_OK;
}

void t_info(void *state, mb_info_fn emit, void *user)
{
    State *st = static_cast<State *>(state);
    emit(user, "name", "libtorch");
    emit(user, "version", TORCH_VERSION);
    emit(user, "providers", "cpu");
    emit(user, "library_path", st ? st->library_path.c_str() : "");
    try {
        std::string cfg = at::show_config();
        emit(user, "build_info", cfg.c_str());
        emit(user, "threads", std::to_string(at::get_num_threads()).c_str());
        emit(user, "inter_threads",
             std::to_string(at::get_num_interop_threads()).c_str());
        emit(user, "executor",
             torch::jit::getProfilingMode()
                 ? "profiling (the first calls profile, "
                   "later ones run the optimised graph)"
                 : "simple (no profiling)");
        emit(user, "profiled_runs",
             std::to_string(torch::jit::getNumProfiledRuns().load()).c_str());
    } catch (const std::exception &e) {
        emit(user, "error", first_line(e).c_str());
    }
}

int apply_options(Session *s, const mb_kv *opts, size_t n, bool *optimize,
                  mb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        const char *k = opts[i].key, *v = opts[i].value;
        long x;
        if (!strcmp(k, "threads") || !strcmp(k, "inter-threads")) {
            if (parse_int(v, 0, 4096, &x))
                return mb_plugin_fail(
                    err, MB_EINVAL,
                    "invalid %s '%s': expected an integer from 0 "
                    "(LibTorch's default) to 4096",
                    k, v);
            if (x == 0)
                continue;
            try {
                if (k[0] == 't')
                    at::set_num_threads((int)x);
                else if (at::get_num_interop_threads() != (int)x)
                    at::set_num_interop_threads((int)x);
            } catch (const std::exception &e) {
                return mb_plugin_fail(err, MB_EINVAL, "%s=%s: %s", k, v,
                                      first_line(e).c_str());
            }
        } else if (!strcmp(k, "dtype")) {
            mb_dtype t = dtype_parse(v);
            if (t != MB_DTYPE_FLOAT32 && t != MB_DTYPE_FLOAT16 &&
                t != MB_DTYPE_BFLOAT16)
                return mb_plugin_fail(
                    err, MB_EINVAL,
                    "invalid dtype '%s': expected float32, float16 "
                    "or bfloat16",
                    v);
            to_torch(t, &s->dtype);
            s->convert = t != MB_DTYPE_FLOAT32;
        } else if (!strcmp(k, "profiling") || !strcmp(k, "optimize")) {
            if (strcmp(v, "0") && strcmp(v, "1"))
                return mb_plugin_fail(err, MB_EINVAL,
                                      "invalid %s '%s': expected 0 or 1", k, v);
            if (k[0] == 'p')
                torch::jit::getProfilingMode() = v[0] == '1';
            else
                *optimize = v[0] == '1';
        } else if (!strncmp(k, "dim:", 4)) {
            continue; /* a hint for ONNX Runtime; shapes come from inputs */
        } else {
            return mb_plugin_fail(
                err, MB_EINVAL,
                "unknown torch backend option '%s'; the options are "
                "threads, inter-threads, dtype, profiling, optimize",
                k);
        }
    }
    return MB_OK;
}

int t_open(void *state, const char *path, const mb_kv *opts, size_t n,
           void **out, mb_err *err)
{
    (void)state;
    *out = nullptr;
    Session *s = new (std::nothrow) Session;
    if (!s)
        return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
    s->model_path = path;
    bool optimize = false;
    int rc = apply_options(s, opts, n, &optimize, err);
    if (rc) {
        delete s;
        return rc;
    }
    torch::jit::ExtraFilesMap extra{{"mbench.json", ""}};
    try {
        s->module = torch::jit::load(path, c10::kCPU, extra);
    } catch (const std::exception &e) {
        delete s;
        return mb_plugin_fail(
            err, MB_EFORMAT,
            "%s is not a TorchScript archive (%s); save the model "
            "with torch.jit.save(torch.jit.script(m) or "
            "torch.jit.trace(m, x), path): torch.save() of a "
            "Python module cannot be loaded without Python",
            path, first_line(e).c_str());
    }
    try {
        s->module.eval();
        if (s->convert)
            s->module.to(s->dtype);
        if (optimize)
            s->module = torch::jit::optimize_for_inference(s->module);
        if (!s->module.find_method("forward")) {
            delete s;
            return mb_plugin_fail(
                err, MB_EMODEL,
                "%s has no forward method; mbench runs forward()", path);
        }
        s->forward.reset(
            new torch::jit::Method(s->module.get_method("forward")));
    } catch (const std::exception &e) {
        delete s;
        return mb_plugin_fail(err, MB_EMODEL, "%s: %s", path,
                              first_line(e).c_str());
    }
    std::string why;
    const std::string &meta = extra["mbench.json"];
    if (!meta.empty()) {
        if (!parse_meta(meta, &s->in, &s->out, &why)) {
            delete s;
            return mb_plugin_fail(
                err, MB_EFORMAT,
                "%s: the extra file mbench.json is malformed (%s); "
                "see docs/FRAMEWORKS.md for its format",
                path, why.c_str());
        }
        s->inputs_from = "mbench.json";
    }
    if (s->in.empty()) {
        s->in.clear();
        describe_from_schema(s);
        s->inputs_from = "forward schema (shapes unknown: give --shape)";
    }
    size_t n_args = s->forward->function().getSchema().arguments().size();
    if (n_args - 1 != s->in.size()) {
        size_t listed = s->in.size();
        delete s;
        return mb_plugin_fail(
            err, MB_EFORMAT,
            "%s: mbench.json lists %zu inputs but forward takes %zu", path,
            listed, n_args - 1);
    }
    for (Io &io : s->out)
        if (io.desc.rank == 0 && io.dim_names.empty())
            io.desc.rank = -1;
    publish(s);
    *out = s;
    return MB_OK;
}

int t_describe(void *session, const mb_io_desc **in, size_t *n_in,
               const mb_io_desc **out, size_t *n_out, mb_err *err)
{
    (void)err;
    Session *s = static_cast<Session *>(session);
    *in = s->in_desc.data();
    *n_in = s->in_desc.size();
    *out = s->out_desc.data();
    *n_out = s->out_desc.size();
    return MB_OK;
}

int t_prepare(void *session, const mb_tensor *inputs, size_t n, mb_err *err)
{
    Session *s = static_cast<Session *>(session);
    if (n != s->in.size())
        return mb_plugin_fail(err, MB_EDATA,
                              "the model takes %zu inputs, got %zu",
                              s->in.size(), n);
    try {
        s->args.clear();
        for (size_t i = 0; i < n; i++) {
            at::ScalarType st;
            if (!to_torch(inputs[i].dtype, &st))
                return mb_plugin_fail(
                    err, MB_EDATA,
                    "input '%s': dtype %s has no LibTorch equivalent",
                    s->in[i].name.c_str(), dtype_name(inputs[i].dtype));
            std::vector<int64_t> dims(inputs[i].dims,
                                      inputs[i].dims + inputs[i].rank);
            /* Borrowed until the next prepare: no copy for float32. */
            at::Tensor t = torch::from_blob(inputs[i].data, dims,
                                            torch::TensorOptions().dtype(st));
            if (s->convert && is_float(inputs[i].dtype))
                t = t.to(s->dtype);
            s->args.emplace_back(t);
        }
    } catch (const std::exception &e) {
        return mb_plugin_fail(err, MB_EDATA, "%s", first_line(e).c_str());
    }
    return MB_OK;
}

int t_run(void *session, mb_err *err)
{
    Session *s = static_cast<Session *>(session);
    try {
        c10::InferenceMode guard;
        c10::IValue r = (*s->forward)(s->args);
        s->results.clear();
        if (!flatten(r, &s->results))
            return mb_plugin_fail(
                err, MB_EUNSUPPORTED,
                "forward returned %s; mbench takes a Tensor or a "
                "tuple/list of Tensors",
                r.tagKind().c_str());
    } catch (const std::exception &e) {
        std::string m = first_line(e);
        if (s->convert && m.find("not implemented for") != std::string::npos)
            return mb_plugin_fail(
                err, MB_EUNSUPPORTED,
                "%s: %s (this LibTorch has no CPU kernel for the "
                "dtype; use dtype=float32 or bfloat16)",
                s->model_path.c_str(), m.c_str());
        return mb_plugin_fail(err, MB_EBACKEND, "%s: %s", s->model_path.c_str(),
                              m.c_str());
    }
    if (!s->described) {
        /* Output dtypes and shapes are known now.  The runner holds the
         * descriptions describe() gave it: they are rewritten in place,
         * and only as many as were described (a model that returns more
         * tensors than described has the extra ones ignored). */
        size_t n = std::min(s->out.size(), s->results.size());
        for (size_t i = 0; i < n && i < s->out_desc.size(); i++) {
            const at::Tensor &t = s->results[i];
            Io &io = s->out[i];
            io.desc.dtype = from_torch(t.scalar_type());
            io.desc.rank =
                (int)t.dim() > MB_MAX_RANK ? MB_MAX_RANK : (int)t.dim();
            io.dim_names.assign((size_t)io.desc.rank, "");
            for (int a = 0; a < io.desc.rank; a++)
                io.desc.dims[a] = t.size(a);
            io.fix();
            s->out_desc[i] = io.desc;
        }
        s->described = true;
    }
    return MB_OK;
}

int t_fetch(void *session, size_t index, mb_tensor *out, mb_err *err)
{
    Session *s = static_cast<Session *>(session);
    memset(out, 0, sizeof *out);
    if (index >= s->results.size())
        return mb_plugin_fail(err, MB_EINVAL,
                              "no output %zu (the model gave %zu)", index,
                              s->results.size());
    try {
        at::Tensor t = s->results[index].contiguous();
        /* Reduced-precision outputs are widened (exactly) to float32:
         * the accuracy metrics and the saved .npy files take them so. */
        if (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16)
            t = t.to(at::kFloat);
        mb_dtype dt = from_torch(t.scalar_type());
        if (dt == MB_DTYPE_UNDEFINED || t.dim() > MB_MAX_RANK)
            return mb_plugin_fail(
                err, MB_EUNSUPPORTED,
                "output %zu has dtype %s or rank %d that mbench "
                "cannot hold",
                index, c10::toString(t.scalar_type()), (int)t.dim());
        size_t bytes = t.numel() * t.element_size();
        out->data = malloc(bytes ? bytes : 1);
        const std::string &nm =
            index < s->out.size() ? s->out[index].name : std::string("output");
        out->name = strdup(nm.c_str());
        if (!out->data || !out->name) {
            free(out->data);
            free(out->name);
            memset(out, 0, sizeof *out);
            return mb_plugin_fail(err, MB_ENOMEM, "out of memory");
        }
        memcpy(out->data, t.data_ptr(), bytes);
        out->nbytes = bytes;
        out->dtype = dt;
        out->rank = (int)t.dim();
        for (int a = 0; a < out->rank; a++)
            out->dims[a] = t.size(a);
    } catch (const std::exception &e) {
        return mb_plugin_fail(err, MB_EBACKEND, "%s", first_line(e).c_str());
    }
    return MB_OK;
}

/* Facts about the opened model for `mbench info` and the run's "model"
 * section: parameters (and buffers) by dtype, methods, submodules, the
 * aten operators of the inlined forward graph. */
void t_model_info(void *session, mb_info_fn emit, void *user)
{
    Session *s = static_cast<Session *>(session);
    try {
        emit(user, "format", "TorchScript");
        emit(user, "inputs_from", s->inputs_from.c_str());
        std::map<std::string, std::pair<uint64_t, uint64_t>> by;
        uint64_t params = 0, bytes = 0;
        for (const at::Tensor &p : s->module.parameters()) {
            auto &e = by[dtype_name(from_torch(p.scalar_type()))];
            e.first += (uint64_t)p.numel();
            e.second += (uint64_t)(p.numel() * p.element_size());
            params += (uint64_t)p.numel();
            bytes += (uint64_t)(p.numel() * p.element_size());
        }
        uint64_t buffers = 0;
        for (const at::Tensor &b : s->module.buffers())
            buffers += (uint64_t)b.numel();
        emit(user, "params", std::to_string(params).c_str());
        emit(user, "param_bytes", std::to_string(bytes).c_str());
        for (const auto &e : by) {
            std::string k = "params_by_dtype:" + e.first;
            std::string v = std::to_string(e.second.first) + " " +
                            std::to_string(e.second.second);
            emit(user, k.c_str(), v.c_str());
        }
        emit(user, "buffer_values", std::to_string(buffers).c_str());
        std::string methods;
        for (const torch::jit::Method &m : s->module.get_methods())
            methods += (methods.empty() ? "" : ",") + m.name();
        emit(user, "methods", methods.c_str());
        size_t mods = 0;
        for (const auto &m : s->module.modules()) {
            (void)m;
            mods++;
        }
        emit(user, "submodules", std::to_string(mods - 1).c_str());
        emit(user, "class",
             s->module.type()->name()
                 ? s->module.type()->name()->qualifiedName().c_str()
                 : "");
        std::shared_ptr<torch::jit::Graph> g = s->forward->graph()->copy();
        torch::jit::Inline(*g);
        std::map<std::string, long> ops;
        size_t nodes = 0;
        for (const torch::jit::Node *node : g->nodes()) {
            std::string k = node->kind().toQualString();
            if (k.rfind("aten::", 0) == 0) {
                ops[k.substr(6)]++;
                nodes++;
            }
        }
        emit(user, "nodes", std::to_string(nodes).c_str());
        for (const auto &e : ops) {
            std::string k = "op:" + e.first;
            emit(user, k.c_str(), std::to_string(e.second).c_str());
        }
    } catch (const std::exception &e) {
        emit(user, "error", first_line(e).c_str());
    }
}

void t_close(void *session)
{
    delete static_cast<Session *>(session);
}

void t_unload(void *state)
{
    delete static_cast<State *>(state);
}

const char *const kOptions[] = {"threads",   "inter-threads", "dtype",
                                "profiling", "optimize",      nullptr};

mb_backend make_backend()
{
    mb_backend b{};
    b.abi_version = MB_BACKEND_ABI_VERSION;
    b.struct_size = sizeof(mb_backend);
    b.name = "torch";
    b.load = t_load;
    b.info = t_info;
    b.open = t_open;
    b.describe = t_describe;
    b.prepare = t_prepare;
    b.run = t_run;
    b.fetch = t_fetch;
    b.close = t_close;
    b.unload = t_unload;
    b.share = nullptr;
    b.caps = MB_BACKEND_CAP_MODEL_FILE;
    b.options = kOptions;
    b.model_info = t_model_info;
    return b;
}

const mb_backend kBackend = make_backend();

} // namespace

extern "C" __attribute__((visibility("default"))) const mb_backend *
mb_backend_entry(void)
{
    return &kBackend;
}
