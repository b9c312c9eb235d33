// A scratch directory for reading a repository on the host (a bundle cloned, a tarball unpacked before `git
// archive`), removed with everything in it when it goes.
#pragma once

#include <string>

namespace e2beval::swe {

// A directory under $TMPDIR removed with everything in it when this goes.
class TemporaryDirectory {
public:
    TemporaryDirectory();
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

}  // namespace e2beval::swe
