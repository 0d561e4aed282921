#pragma once
// The admin REST client of `cnxsim run --against`: one HTTP/1.1 request per
// call on its own connection, with a deadline, to a real broker's admin port.
// The answer is turned into the AdminResponse the model's AdminApi gives
// (status, JSON body, reason), so sim/clients/admin_client.h observes both the
// same way. Bodies are bounded (kMaxBody); a body that is not JSON is kept as
// its text in `reason`.

#include <chrono>
#include <optional>
#include <string>

#include "broker_model/admin/admin_api.h"
#include "sim/live/live_connection.h"

namespace cnx::sim::live {

inline constexpr std::size_t kMaxAdminBody = 8 * 1024 * 1024;

class LiveAdmin {
public:
    LiveAdmin(Endpoint admin, std::chrono::milliseconds timeout) : admin_(std::move(admin)), timeout_(timeout) {}

    /// `method` is GET, PUT, POST or DELETE; `target` the path and query;
    /// `jsonBody` sent with Content-Type application/json. A request that
    /// cannot be made (refused, timed out) answers status 0 with the reason.
    AdminResponse call(const std::string& method, const std::string& target,
                       const std::optional<std::string>& jsonBody = std::nullopt) const;

    const Endpoint& endpoint() const { return admin_; }

private:
    Endpoint admin_;
    std::chrono::milliseconds timeout_;
};

}  // namespace cnx::sim::live
