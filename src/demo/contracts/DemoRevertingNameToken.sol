// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Demo ERC-20 token with broken metadata: `name()` reverts and `symbol()` returns bytes that are
/// not an ABI-encoded string. Transfers work normally.
contract DemoRevertingNameToken is ERC20 {
    error NameUnavailable();

    address public immutable owner;

    constructor(address initialOwner) ERC20("", "") {
        owner = initialOwner;
    }

    function name() public pure override returns (string memory) {
        revert NameUnavailable();
    }

    /// Returns one 32-byte word whose "offset" points far outside the return data.
    function symbol() public pure override returns (string memory) {
        assembly {
            mstore(0, 0xdeadbeef00000000000000000000000000000000000000000000000000c0ffee)
            return(0, 32)
        }
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "not the owner");
        _mint(to, value);
    }
}
