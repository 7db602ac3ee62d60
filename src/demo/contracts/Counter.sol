// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";

/// @title Implementation behind the demo EIP-1967 proxy: a counter initialised through the proxy.
contract CounterV1 is Initializable {
    uint256 public value;
    address public admin;

    event ValueChanged(address indexed caller, uint256 previousValue, uint256 newValue);

    constructor() {
        // The implementation itself must never be initialised; only proxies are.
        _disableInitializers();
    }

    function initialize(address admin_, uint256 initialValue) external initializer {
        admin = admin_;
        value = initialValue;
    }

    function increment() external {
        _setValue(value + 1);
    }

    function setValue(uint256 newValue) external {
        _setValue(newValue);
    }

    function version() external pure returns (string memory) {
        return "1";
    }

    function _setValue(uint256 newValue) private {
        emit ValueChanged(msg.sender, value, newValue);
        value = newValue;
    }
}

/// @title OpenZeppelin's ERC1967Proxy under a local name so it is compiled with the demo sources.
contract CounterProxy is ERC1967Proxy {
    constructor(address implementation, bytes memory initializeCall) payable ERC1967Proxy(implementation, initializeCall) {}
}
