// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Demo ERC-20 token whose `name()` and `symbol()` return `bytes32`, like MKR and other early tokens.
/// @dev Written out by hand: OpenZeppelin's ERC20 fixes `name()` to return `string`.
contract DemoBytes32Token {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotOwner();

    address public immutable owner;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(address initialOwner) {
        owner = initialOwner;
    }

    /// Right-padded with zero bytes, as MKR does.
    function name() external pure returns (bytes32) {
        return "Sextant Bytes32 Token";
    }

    function symbol() external pure returns (bytes32) {
        return "SB32";
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != owner) revert NotOwner();
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
