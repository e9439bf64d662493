#include "lib/operand/expression_parser.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "lib/operand/expression_values.h"

namespace tharsis::operand {

namespace {

enum class TokenKind { Name, Number, String, Symbol, End, Newline };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  double number = 0;
  int line = 1;
  int column = 1;
};

std::string where(const Token& token) {
  return "line " + std::to_string(token.line) + ", column " + std::to_string(token.column);
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::End:
      return "the end";
    case TokenKind::Newline:
      return "the end of the line";
    case TokenKind::String:
      return "\"" + token.text.substr(0, 64) + "\"";
    default:
      return "'" + token.text + "'";
  }
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

Result<std::vector<Token>> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  int line = 1;
  size_t line_start = 0;
  int depth = 0;  // newlines inside parentheses do not end a statement
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    Token token;
    token.line = line;
    token.column = static_cast<int>(i - line_start) + 1;
    if (c == '\n') {
      if (depth == 0) {
        token.kind = TokenKind::Newline;
        token.text = "\\n";
        tokens.push_back(token);
      }
      ++i;
      ++line;
      line_start = i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (is_name_start(c)) {
      const size_t start = i;
      while (i < text.size() && (is_name_start(text[i]) || is_digit(text[i]))) ++i;
      token.kind = TokenKind::Name;
      token.text = text.substr(start, i - start);
    } else if (is_digit(c) || (c == '.' && i + 1 < text.size() && is_digit(text[i + 1]))) {
      const char* begin = text.c_str() + i;
      char* end = nullptr;
      token.number = std::strtod(begin, &end);
      token.kind = TokenKind::Number;
      token.text = std::string(begin, static_cast<size_t>(end - begin));
      i += token.text.size();
    } else if (c == '"' || c == '\'') {
      // A quoted name (files=): no escapes, on one line.
      const size_t close = text.find(c, i + 1);
      const size_t newline = text.find('\n', i + 1);
      if (close == std::string::npos || (newline != std::string::npos && newline < close)) {
        return make_error(where(token) + ": a quoted name is not closed on its line");
      }
      token.kind = TokenKind::String;
      token.text = text.substr(i + 1, close - i - 1);
      i = close + 1;
    } else if (i + 1 < text.size() && text[i + 1] == '=' &&
               std::string_view("<>=!").find(c) != std::string_view::npos) {
      token.kind = TokenKind::Symbol;  // <= >= == !=
      token.text = text.substr(i, 2);
      i += 2;
    } else if (std::string_view("+-*/@(),=.;<>").find(c) != std::string_view::npos) {
      token.kind = TokenKind::Symbol;
      token.text = std::string(1, c);
      if (c == '(') ++depth;
      if (c == ')' && depth > 0) --depth;
      ++i;
    } else {
      return make_error(where(token) + ": unexpected character '" + std::string(1, c) + "'");
    }
    tokens.push_back(token);
  }
  Token end;
  end.line = line;
  end.column = static_cast<int>(text.size() - line_start) + 1;
  tokens.push_back(end);
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<TensorGraph> program() {
    std::optional<ExprValue> last_bare;
    for (;;) {
      while (is_separator()) ++pos_;
      if (peek().kind == TokenKind::End) break;
      last_bare.reset();
      if (peek().kind == TokenKind::Name && peek(1).kind == TokenKind::Symbol && peek(1).text == "=") {
        const std::string name = take().text;
        ++pos_;
        auto value = expression();
        if (!value.ok()) return Error{value.error()};
        names_[name] = *value;
      } else {
        auto value = expression();
        if (!value.ok()) return Error{value.error()};
        last_bare = *value;
      }
      if (!is_separator() && peek().kind != TokenKind::End) {
        return make_error(where(peek()) + ": expected ';' or a new line, found " + describe(peek()));
      }
    }
    std::optional<ExprValue> result = last_bare;
    if (auto named = names_.find("result"); named != names_.end()) result = named->second;
    if (!result) return make_error("no result: assign 'result = ...' or end with an expression");
    if (!result->is_tensor) return make_error("the result is a number, not a tensor");
    return std::move(builder_).finish(result->node);
  }

 private:
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& take() { return tokens_[std::min(pos_++, tokens_.size() - 1)]; }
  bool is_separator() const {
    return peek().kind == TokenKind::Newline || (peek().kind == TokenKind::Symbol && peek().text == ";");
  }
  bool at_symbol(const char* symbol) const {
    return peek().kind == TokenKind::Symbol && peek().text == symbol;
  }
  Status expect(const char* symbol) {
    if (!at_symbol(symbol)) {
      return make_error(where(peek()) + ": expected '" + symbol + "', found " + describe(peek()));
    }
    ++pos_;
    return Status::success();
  }
  // Builder and call errors get the place of the token that caused them.
  static Result<ExprValue> located(Result<ExprValue> value, const Token& at) {
    if (!value.ok()) return make_error(where(at) + ": " + value.error());
    return value;
  }

  Result<ExprValue> expression() {
    auto left = binary_level(0);
    if (!left.ok() || !at_comparison()) return left;
    const Token op = take();
    auto right = binary_level(0);
    if (!right.ok()) return right;
    if (at_comparison()) {
      return make_error(where(peek()) + ": comparisons do not chain; use parentheses, found " +
                        describe(peek()));
    }
    return located(apply_operator(builder_, op.text, *left, *right), op);
  }

  bool at_comparison() const {
    if (peek().kind != TokenKind::Symbol) return false;
    const std::string& t = peek().text;
    return t == "<" || t == "<=" || t == ">" || t == ">=" || t == "==" || t == "!=";
  }

  // Level 0: + -, level 1: * / @, then unary.
  Result<ExprValue> binary_level(int level) {
    auto left = level == 0 ? binary_level(1) : unary();
    if (!left.ok()) return left;
    const char* ops = level == 0 ? "+-" : "*/@";
    while (peek().kind == TokenKind::Symbol &&
           std::string_view(ops).find(peek().text[0]) != std::string_view::npos) {
      const Token op = take();
      auto right = level == 0 ? binary_level(1) : unary();
      if (!right.ok()) return right;
      left = located(apply_operator(builder_, op.text, *left, *right), op);
      if (!left.ok()) return left;
    }
    return left;
  }

  Result<ExprValue> unary() {
    // Every nested expression passes here; bounding it keeps hostile input off the stack.
    if (nesting_ >= kMaxNesting) return make_error(where(peek()) + ": expression nested too deeply");
    ++nesting_;
    auto value = unary_inner();
    --nesting_;
    return value;
  }

  Result<ExprValue> unary_inner() {
    if (at_symbol("-")) {
      const Token op = take();
      auto x = unary();
      if (!x.ok()) return x;
      return located(negate(builder_, *x), op);
    }
    return postfix();
  }

  Result<ExprValue> postfix() {
    auto value = primary();
    while (value.ok() && at_symbol(".")) {
      ++pos_;
      const Token method = take();
      if (method.kind != TokenKind::Name) {
        return make_error(where(method) + ": expected a method name after '.', found " + describe(method));
      }
      if (method.text == "T") {
        value = located(call_function(builder_, "transpose", {*value}, {}), method);
        continue;
      }
      std::vector<ExprValue> args{*value};
      std::vector<KeywordArgument> keywords;
      if (Status ok = arguments(args, keywords); !ok) return Error{ok.error()};
      const std::string name = method.text == "dot" ? "matmul" : method.text;
      value = located(call_function(builder_, name, std::move(args), keywords), method);
    }
    return value;
  }

  Result<ExprValue> primary() {
    const Token token = take();
    if (token.kind == TokenKind::Number) return ExprValue::of_number(token.number);
    if (token.kind == TokenKind::Symbol && token.text == "(") {
      auto inner = expression();
      if (!inner.ok()) return inner;
      if (Status ok = expect(")"); !ok) return Error{ok.error()};
      return inner;
    }
    if (token.kind != TokenKind::Name) {
      return make_error(where(token) + ": expected a number, a name or '(', found " + describe(token));
    }
    if (at_symbol("(")) {
      std::vector<ExprValue> args;
      std::vector<KeywordArgument> keywords;
      if (Status ok = arguments(args, keywords); !ok) return Error{ok.error()};
      return located(call_function(builder_, token.text, std::move(args), keywords), token);
    }
    auto found = names_.find(token.text);
    if (found == names_.end()) {
      std::string known;
      for (const auto& [name, value] : names_) known += (known.empty() ? "" : ", ") + name;
      return make_error(where(token) + ": unknown name '" + token.text + "'" +
                        (known.empty() ? "" : " (defined: " + known + ")"));
    }
    return found->second;
  }

  // "(" [argument {"," argument}] ")" where argument is expr or name=value.
  Status arguments(std::vector<ExprValue>& args, std::vector<KeywordArgument>& keywords) {
    if (Status ok = expect("("); !ok) return ok;
    while (!at_symbol(")")) {
      if (peek().kind == TokenKind::Name && peek(1).kind == TokenKind::Symbol && peek(1).text == "=") {
        KeywordArgument keyword;
        keyword.name = take().text;
        ++pos_;
        if (keyword.name == "shape" || keyword.name == "chunk") {
          auto shape = shape_literal();
          if (!shape.ok()) return Error{shape.error()};
          keyword.shape = *shape;
        } else if (keyword.name == "files") {
          auto names = names_literal();
          if (!names.ok()) return Error{names.error()};
          keyword.names = std::move(*names);
        } else {
          auto value = expression();
          if (!value.ok()) return Error{value.error()};
          keyword.value = *value;
        }
        keywords.push_back(std::move(keyword));
      } else {
        if (!keywords.empty())
          return make_error(where(peek()) + ": positional argument after a keyword argument");
        auto value = expression();
        if (!value.ok()) return Error{value.error()};
        args.push_back(*value);
      }
      if (!at_symbol(",")) break;
      ++pos_;
    }
    return expect(")");
  }

  // (400, 400), (7,), () or a bare 7.
  Result<Shape> shape_literal() {
    Shape shape;
    const bool bare = !at_symbol("(");
    if (!bare) ++pos_;
    while (bare || !at_symbol(")")) {
      const Token token = take();
      if (token.kind != TokenKind::Number) {
        return make_error(where(token) + ": expected a whole number in the shape, found " + describe(token));
      }
      auto extent = whole_number(token.number, 1, int64_t{1} << 40, "shape extent");
      if (!extent.ok()) return make_error(where(token) + ": " + extent.error());
      shape.push_back(*extent);
      if (bare || !at_symbol(",")) break;
      ++pos_;
    }
    if (!bare) {
      if (Status ok = expect(")"); !ok) return Error{ok.error()};
    }
    return shape;
  }

  // ("jf_1", "jf_2"), ("jf_1",) or a bare "jf_1".
  Result<std::vector<std::string>> names_literal() {
    std::vector<std::string> names;
    const bool bare = !at_symbol("(");
    if (!bare) ++pos_;
    while (bare || !at_symbol(")")) {
      const Token token = take();
      if (token.kind != TokenKind::String) {
        return make_error(where(token) + ": expected a quoted file name, found " + describe(token));
      }
      names.push_back(token.text);
      if (bare || !at_symbol(",")) break;
      ++pos_;
    }
    if (!bare) {
      if (Status ok = expect(")"); !ok) return Error{ok.error()};
    }
    return names;
  }

  static constexpr int kMaxNesting = 200;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;
  TensorGraphBuilder builder_;
  std::map<std::string, ExprValue> names_;
};

}  // namespace

Result<TensorGraph> parse_expression(const std::string& text) {
  auto tokens = tokenize(text);
  if (!tokens.ok()) return Error{tokens.error()};
  return Parser(std::move(*tokens)).program();
}

}  // namespace tharsis::operand
