// Boost.Beast's compiled part, built once here rather than inline in every source that includes Beast: e2beval
// and everything that links it define BOOST_BEAST_SEPARATE_COMPILATION (CMakeLists.txt, the pkg-config file).
#include <boost/beast/src.hpp>
