// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Demo ERC-20 token with 18 decimals that only its owner can mint.
contract DemoToken is ERC20, Ownable {
    constructor(address initialOwner) ERC20("Sextant Demo Token", "SDT") Ownable(initialOwner) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
