#pragma once
// A broker with its admin API for the admin unit tests (admin_api_body_test,
// missing_namespace_test): each call runs the broker until the answer is in.

#include <catch2/catch.hpp>

#include <utility>

#include "broker_model/admin/admin_api.h"
#include "model_test_support.h"

namespace cnx::testing {

struct AdminFixture {
    explicit AdminFixture(const BehaviourProfile& p = newestProfile()) : f(p), api(f.broker) {}
    BrokerFixture f;
    AdminApi api;

    /// `call(callback)` answered: the broker runs until idle, and it must have answered.
    template <typename Call>
    AdminResponse wait(Call call) {
        auto r = f.answerOf<AdminResponse>(std::move(call));
        REQUIRE(r);
        return *r;
    }
};

}  // namespace cnx::testing
