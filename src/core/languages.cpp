// The registry of languages: one descriptor per language (src/core/languages/<name>.cpp), in the enum's order,
// and the lookups every layer uses (names, fence tags, file extensions).
#include "e2beval/core/language.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/languages/descriptors.hpp"

namespace e2beval {

namespace {

constexpr std::array<const LanguageDescriptor*, 9> kLanguages{
    &languages::kPython, &languages::kJavaScript, &languages::kBash, &languages::kC,         &languages::kCpp,
    &languages::kGo,     &languages::kRust,       &languages::kJava, &languages::kTypeScript,
};

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

}  // namespace

const LanguageDescriptor& describe(Language language) noexcept {
    for (const auto* descriptor : kLanguages)
        if (descriptor->language == language) return *descriptor;
    return languages::kPython;  // unreachable: every enum value has a descriptor (tests/cpp/test_languages.cpp)
}

std::span<const LanguageDescriptor* const> all_languages() noexcept { return kLanguages; }

std::optional<Language> language_from_extension(std::string_view extension) noexcept {
    const auto lower = lowercase(extension);
    for (const auto* descriptor : kLanguages)
        for (const auto known : descriptor->extensions)
            if (lower == known) return descriptor->language;
    return std::nullopt;
}

std::string_view to_string(Language language) noexcept { return describe(language).name; }

std::optional<Language> language_from_tag(std::string_view tag) noexcept {
    const auto lower = lowercase(tag);
    for (const auto* descriptor : kLanguages) {
        if (lower == descriptor->name) return descriptor->language;
        for (const auto alias : descriptor->aliases)
            if (lower == alias) return descriptor->language;
    }
    return std::nullopt;
}

std::optional<Language> language_from_file_name(std::string_view path) noexcept {
    const auto name = path.substr(path.find_last_of('/') + 1);
    const auto dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return std::nullopt;  // no extension, or a dot file (".py")
    return language_from_extension(name.substr(dot));
}

std::string file_extensions_text(Language language) {
    std::string text;
    for (const auto extension : describe(language).extensions) text += (text.empty() ? "" : ", ") + std::string(extension);
    return text;
}

std::string language_names_text() {
    std::string text;
    for (const auto* descriptor : kLanguages) text += (text.empty() ? "" : ", ") + std::string(descriptor->name);
    return text;
}

}  // namespace e2beval
