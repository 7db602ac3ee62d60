// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Demo ERC-20 with 6 decimals (like USDC), the second token of the demo's Uniswap and Aave pools.
contract DemoDollar is ERC20, Ownable {
    constructor(address initialOwner) ERC20("Sextant Demo Dollar", "SDD") Ownable(initialOwner) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
