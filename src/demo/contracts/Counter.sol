// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import {Initializable} from "@openzeppelin/contracts/proxy/utils/Initializable.sol";
import {UUPSUpgradeable} from "@openzeppelin/contracts/proxy/utils/UUPSUpgradeable.sol";

/// @title Implementation behind the demo EIP-1967 proxy: a counter initialised through the proxy.
/// @notice UUPS (EIP-1822): the proxy is upgraded by calling `upgradeToAndCall` on it, which only the admin may.
contract CounterV1 is Initializable, UUPSUpgradeable {
    uint256 public value;
    address public admin;

    event ValueChanged(address indexed caller, uint256 previousValue, uint256 newValue);

    error NotAdmin(address caller);

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

    function version() external pure virtual returns (string memory) {
        return "1";
    }

    function _setValue(uint256 newValue) internal {
        emit ValueChanged(msg.sender, value, newValue);
        value = newValue;
    }

    function _authorizeUpgrade(address) internal view override {
        if (msg.sender != admin) revert NotAdmin(msg.sender);
    }
}

/// @title The counter's second version: same storage, plus `incrementBy`.
contract CounterV2 is CounterV1 {
    function incrementBy(uint256 amount) external {
        _setValue(value + amount);
    }

    function version() external pure override returns (string memory) {
        return "2";
    }
}

/// @title OpenZeppelin's ERC1967Proxy under a local name so it is compiled with the demo sources.
contract CounterProxy is ERC1967Proxy {
    constructor(address implementation, bytes memory initializeCall) payable ERC1967Proxy(implementation, initializeCall) {}
}
