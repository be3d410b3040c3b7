// The runtime format cache: print("{} {}\n", a, b) faster than fmt::vformat_to.
//
// fmt's own runtime formatting (fmt::detail::vformat_to in fmt/format.h)
// with two changes. An argument of a built-in type is formatted through its
// static type instead of a type-erased fmt::basic_format_arg; and the parsed
// format -- literal text, fields and their parsed specs -- is remembered per
// thread for each list of argument types, so that the next call with the
// same format string only compares it and replays. Parsing, specs, writers
// and errors are all fmt's, so the text is the same.
//
// It relies on fmt 9's internals, more of them than anything else in
// fastout: parse_format_string and its handler protocol, specs_checker and
// specs_handler, basic_format_specs, arg_formatter, default_arg_formatter,
// custom_formatter, arg_mapper, mapped_type_constant and get_arg. With any
// other fmt version this header defines nothing, and print() takes
// fmt::vformat_to; deleting it (and its include in format.h) removes the
// cache and nothing else.
#ifndef FASTOUT_DETAIL_FORMAT_CACHE_H_
#define FASTOUT_DETAIL_FORMAT_CACHE_H_

#include <cstddef>
#include <cstring>
#include <tuple>
#include <utility>

#include <fastout/config.h>
#include <fastout/detail/fmt_compat.h>

#if FMT_VERSION >= 90000 && FMT_VERSION < 100000
#  define FASTOUT_FORMAT_CACHE 1

namespace fastout {
namespace detail {

// One parsed format string. Trivial, so a thread_local costs no guard.
struct format_plan {
  static constexpr std::size_t max_format_size = 64;
  static constexpr std::size_t max_segments = 8;
  enum kind : unsigned char { text, field, field_with_specs };
  struct segment {
    kind what;
    unsigned char arg;
    unsigned short offset, size;  // of a text segment, in the format string
    fmt::basic_format_specs<char> specs;
  };
  // The format string the plan was made for; a size of -1 matches none.
  std::size_t format_size;
  char format[max_format_size];
  std::size_t segment_count;
  segment segments[max_segments];
};

// Copies short literal text inline ("\n", ", ") rather than through fmt's
// append and a memcpy call.
FASTOUT_ALWAYS_INLINE void append_text(fmt_buffer_base& out, const char* begin,
                                       std::size_t size) {
  std::size_t used = out.size();
  if (size <= 16 && out.capacity() - used >= size) {
    char* to = out.data() + used;
    for (std::size_t i = 0; i < size; ++i) to[i] = begin[i];
    out.try_resize(used + size);
    return;
  }
  out.append(begin, begin + size);
}

template <typename... T>
class static_formatter {
 public:
  static_formatter(fmt_buffer_base& out, fmt::format_args format_args,
                   const T&... args)
      : out_(out), context_(fmt::appender(out), format_args), args_(args...) {}

  // Replays a plan made by record().
  FASTOUT_ALWAYS_INLINE void replay(const format_plan& plan) {
    for (std::size_t i = 0; i < plan.segment_count; ++i) {
      const format_plan::segment& s = plan.segments[i];
      switch (s.what) {
        case format_plan::text:
          append_text(out_, plan.format + s.offset, s.size);
          break;
        case format_plan::field:
          visit_builtin(s.arg, [&](auto value) { write_default(value); });
          break;
        case format_plan::field_with_specs:
          visit_builtin(s.arg, [&](auto value) { write_with_specs(value, s.specs); });
          break;
      }
    }
  }

  // Formats by fmt's parser; records a plan into `plan` when the format can
  // be replayed (short enough, no user-defined types, no dynamic width).
  void record(fmt::string_view format, format_plan* plan) {
    plan_ = plan;
    if (plan_ != nullptr) {
      plan_->format_size = static_cast<std::size_t>(-1);  // matches nothing until done
      plan_->segment_count = 0;
      if (format.size() > format_plan::max_format_size) plan_ = nullptr;
    }
    format_begin_ = format.data();
    fmt::detail::parse_format_string<false>(format, handler(*this, format));
    if (plan_ != nullptr) {
      // An empty format may have no storage: memcpy must not see its null.
      if (format.size() != 0) std::memcpy(plan_->format, format.data(), format.size());
      plan_->format_size = format.size();  // last: a throw above leaves no plan
    }
  }

 private:
  // The handler fmt's parse_format_string() calls.
  struct handler : fmt::detail::error_handler {
    handler(static_formatter& formatter, fmt::string_view format)
        : self(formatter), parse_context(format) {}
    static_formatter& self;
    fmt::format_parse_context parse_context;

    void on_text(const char* begin, const char* end) {
      std::size_t size = static_cast<std::size_t>(end - begin);
      if (size == 0) return;
      append_text(self.out_, begin, size);
      if (format_plan::segment* s = self.add_segment(format_plan::text, 0)) {
        s->offset = static_cast<unsigned short>(begin - self.format_begin_);
        s->size = static_cast<unsigned short>(size);
      }
    }
    int on_arg_id() { return parse_context.next_arg_id(); }
    int on_arg_id(int id) {
      parse_context.check_arg_id(id);
      return id;
    }
    int on_arg_id(fmt::string_view name) {
      // The position a name stands for is the caller's, and differs between
      // calls with the same argument types: never part of a plan.
      self.plan_ = nullptr;
      int id = self.context_.arg_id(name);
      if (id < 0) on_error("argument not found");
      return id;
    }

    void on_replacement_field(int id, const char*) {
      if (self.visit_builtin(id, [&](auto value) { self.write_default(value); })) {
        self.add_segment(format_plan::field, id);
        return;
      }
      self.plan_ = nullptr;  // a user-defined type: fmt's own path
      auto& context = self.context_;
      context.advance_to(fmt::visit_format_arg(
          fmt::detail::default_arg_formatter<char>{context.out(), context.args(),
                                                   context.locale()},
          fmt::detail::get_arg(context, id)));
    }

    const char* on_format_specs(int id, const char* begin, const char* end) {
      auto& context = self.context_;
      fmt::detail::type arg_type = fmt::detail::type::custom_type;
      self.visit_builtin(id, [&](auto value) {
        arg_type = fmt::detail::mapped_type_constant<decltype(value), fmt::format_context>::value;
      });
      if (arg_type == fmt::detail::type::custom_type) {
        self.plan_ = nullptr;
        auto arg = fmt::detail::get_arg(context, id);
        parse_context.advance_to(parse_context.begin() + (begin - &*parse_context.begin()));
        fmt::visit_format_arg(fmt::detail::custom_formatter<char>{parse_context, context}, arg);
        return parse_context.begin();
      }
      const char* specs_begin = begin;
      auto specs = fmt::basic_format_specs<char>();
      fmt::detail::specs_checker<fmt::detail::specs_handler<char>> checker(
          fmt::detail::specs_handler<char>(specs, parse_context, context), arg_type);
      begin = fmt::detail::parse_format_specs(begin, end, checker);
      if (begin == end || *begin != '}') on_error("missing '}' in format string");
      self.visit_builtin(id, [&](auto value) { self.write_with_specs(value, specs); });
      // A width or precision taken from an argument differs per call.
      if (std::memchr(specs_begin, '{', static_cast<std::size_t>(begin - specs_begin)) != nullptr)
        self.plan_ = nullptr;
      if (format_plan::segment* s = self.add_segment(format_plan::field_with_specs, id))
        s->specs = specs;
      return begin;
    }
  };

  format_plan::segment* add_segment(format_plan::kind what, int arg) {
    if (plan_ == nullptr) return nullptr;
    if (plan_->segment_count == format_plan::max_segments) {
      plan_ = nullptr;
      return nullptr;
    }
    format_plan::segment* s = &plan_->segments[plan_->segment_count++];
    s->what = what;
    s->arg = static_cast<unsigned char>(arg);
    return s;
  }

  template <typename V>
  FASTOUT_ALWAYS_INLINE void write_default(V value) {
    context_.advance_to(fmt::detail::write<char>(context_.out(), value));
  }
  template <typename V>
  FASTOUT_ALWAYS_INLINE void write_with_specs(V value, const fmt::basic_format_specs<char>& specs) {
    context_.advance_to(
        fmt::detail::arg_formatter<char>{context_.out(), specs, context_.locale()}(value));
  }

  // Calls f with the id-th argument as fmt maps it (long -> long long,
  // std::string -> string_view, ...) if that is a built-in type; returns
  // false for a user-defined type or an id out of range.
  template <typename F>
  FASTOUT_ALWAYS_INLINE bool visit_builtin(int id, F&& f) {
    return visit_builtin(id, f, std::index_sequence_for<T...>());
  }
  template <typename F, std::size_t... I>
  FASTOUT_ALWAYS_INLINE bool visit_builtin(int id, F& f, std::index_sequence<I...>) {
    bool done = false;
    ((static_cast<int>(I) == id ? (done = visit_one(f, std::get<I>(args_))) : false), ...);
    return done;
  }
  template <typename F, typename A>
  FASTOUT_ALWAYS_INLINE bool visit_one(F& f, const A& arg) {
    constexpr auto type = fmt::detail::mapped_type_constant<A, fmt::format_context>::value;
    if constexpr (type == fmt::detail::type::custom_type || type == fmt::detail::type::none_type) {
      return false;
    } else {
      f(fmt::detail::arg_mapper<fmt::format_context>().map(arg));
      return true;
    }
  }

  fmt_buffer_base& out_;
  fmt::format_context context_;
  std::tuple<const T&...> args_;
  format_plan* plan_ = nullptr;
  const char* format_begin_ = nullptr;
};

// The plan for the format string last used with these argument types on
// this thread.
template <typename... T>
inline thread_local format_plan last_plan{};

template <typename... T>
FASTOUT_ALWAYS_INLINE void format_static(fmt_buffer_base& out, fmt::string_view format,
                                         fmt::format_args format_args, const T&... args) {
  static_formatter<T...> formatter(out, format_args, args...);
  format_plan& plan = last_plan<T...>;
  if (FASTOUT_LIKELY(plan.format_size == format.size() &&
                     (format.size() == 0 ||  // no null pointer for memcmp
                      std::memcmp(plan.format, format.data(), format.size()) == 0))) {
    formatter.replay(plan);
    return;
  }
  // Slower, and rare in a loop: parse, and remember for next time. Only
  // argument counts a plan can index are remembered.
  formatter.record(format, sizeof...(T) <= 255 ? &plan : nullptr);
}

}  // namespace detail
}  // namespace fastout

#endif  // FMT_VERSION 9
#endif  // FASTOUT_DETAIL_FORMAT_CACHE_H_
