// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Forwards a call, as a smart-contract bundler relays `handleOps` to an EntryPoint.
contract BundleForwarder {
    function forward(address target, bytes calldata data) external payable returns (bytes memory) {
        (bool ok, bytes memory result) = target.call{value: msg.value}(data);
        if (!ok) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
        return result;
    }
}
