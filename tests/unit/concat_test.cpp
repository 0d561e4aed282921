// cnx::concat (broker_model/core/concat.h): the pieces in order, of every kind
// trace details are written from.

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "broker_model/core/concat.h"

TEST_CASE("concat joins literals, strings and views in order", "[concat]") {
    const std::string name = "p-1";
    const std::string_view type = "AVRO";
    const char* flag = "true";
    CHECK(cnx::concat() == "");
    CHECK(cnx::concat("producer '", name, "' with ", type, " enforced=", flag, "") ==
          "producer 'p-1' with AVRO enforced=true");
    const std::string longPiece(100, 'x');
    auto joined = cnx::concat(longPiece, std::string_view("\0y", 2), longPiece);
    CHECK(joined.size() == 202);
    CHECK(joined == longPiece + std::string("\0y", 2) + longPiece);
}
