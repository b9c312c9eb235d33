// Boost.Asio's compiled part (its .ipp files, TLS included), built once here rather than inline in every source
// that includes Asio: e2beval and everything that links it define BOOST_ASIO_SEPARATE_COMPILATION
// (CMakeLists.txt, the pkg-config file), so their Asio headers declare these functions instead of defining them.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
