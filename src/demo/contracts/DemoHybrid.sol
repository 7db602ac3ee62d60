// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// ERC-20 events: amounts go in the data, so `Transfer` has 3 topics.
library ERC20Events {
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);
}

/// ERC-721 events: the token id is indexed, so `Transfer` has 4 topics under the same topic0.
library ERC721Events {
    event Transfer(address indexed from, address indexed to, uint256 indexed id);
    event Approval(address indexed owner, address indexed spender, uint256 indexed id);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
}

/// @title Demo ERC-404-style hybrid: an 18-decimal fungible token where every whole unit (1e18) held is
/// also an NFT. Moving units moves, mints or burns NFTs so that each holder always owns exactly
/// `balanceOf(holder) / UNIT` of them, and every move emits both the ERC-20 and the ERC-721 `Transfer`.
/// @dev As in ERC-404 v2, NFT ids carry the top bit (`ID_PREFIX`), so `approve` and `transferFrom` tell
/// an id from an amount.
contract DemoHybrid {
    error NotOwner();
    error NotAuthorized();
    error InvalidRecipient();
    error UnknownId(uint256 id);

    string public constant name = "Sextant Demo Hybrid";
    string public constant symbol = "SDH";
    uint8 public constant decimals = 18;
    uint256 public constant UNIT = 1e18;
    uint256 public constant ID_PREFIX = 1 << 255;

    address public immutable owner;
    uint256 public totalSupply;
    /// NFT ids ever minted; ids run from `ID_PREFIX + 1` to `ID_PREFIX + minted`.
    uint256 public minted;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(uint256 => address) public getApproved;
    mapping(address => mapping(address => bool)) public isApprovedForAll;
    mapping(uint256 => address) private _ownerOf;
    mapping(address => uint256[]) private _owned;
    mapping(uint256 => uint256) private _ownedIndex;

    constructor(address initialOwner) {
        owner = initialOwner;
    }

    function ownerOf(uint256 id) public view returns (address holder) {
        holder = _ownerOf[id];
        if (holder == address(0)) revert UnknownId(id);
    }

    /// NFT ids `holder` owns, in no particular order.
    function owned(address holder) external view returns (uint256[] memory) {
        return _owned[holder];
    }

    function erc721BalanceOf(address holder) external view returns (uint256) {
        return _owned[holder].length;
    }

    function tokenURI(uint256 id) external view returns (string memory) {
        ownerOf(id);
        return "data:application/json,{\"name\":\"Sextant Demo Hybrid unit\"}";
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // ERC-165 and ERC-721.
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner();
        if (to == address(0)) revert InvalidRecipient();
        _transferUnits(address(0), to, amount);
    }

    /// Burns fungible units; NFTs go with every whole unit lost.
    function burn(uint256 amount) external {
        _transferUnits(msg.sender, address(0), amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        if (to == address(0)) revert InvalidRecipient();
        _transferUnits(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amountOrId) external returns (bool) {
        if (amountOrId > ID_PREFIX) {
            address holder = ownerOf(amountOrId);
            if (msg.sender != holder && !isApprovedForAll[holder][msg.sender]) revert NotAuthorized();
            getApproved[amountOrId] = spender;
            emit ERC721Events.Approval(holder, spender, amountOrId);
        } else {
            allowance[msg.sender][spender] = amountOrId;
            emit ERC20Events.Approval(msg.sender, spender, amountOrId);
        }
        return true;
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ERC721Events.ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 amountOrId) external returns (bool) {
        if (to == address(0)) revert InvalidRecipient();
        if (amountOrId > ID_PREFIX) {
            if (ownerOf(amountOrId) != from) revert NotAuthorized();
            bool authorized = msg.sender == from || isApprovedForAll[from][msg.sender]
                || getApproved[amountOrId] == msg.sender;
            if (!authorized) revert NotAuthorized();
            // One whole unit travels with the NFT, so both holders keep floor(balance / UNIT) NFTs.
            balanceOf[from] -= UNIT;
            balanceOf[to] += UNIT;
            emit ERC20Events.Transfer(from, to, UNIT);
            _moveId(from, to, amountOrId);
        } else {
            uint256 allowed = allowance[from][msg.sender];
            if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amountOrId;
            _transferUnits(from, to, amountOrId);
        }
        return true;
    }

    /// Moves fungible units; `from` zero mints, `to` zero burns.
    function _transferUnits(address from, address to, uint256 amount) private {
        uint256 fromUnits = balanceOf[from] / UNIT;
        uint256 toUnits = balanceOf[to] / UNIT;
        if (from == address(0)) totalSupply += amount;
        else balanceOf[from] -= amount;
        if (to == address(0)) totalSupply -= amount;
        else balanceOf[to] += amount;
        emit ERC20Events.Transfer(from, to, amount);

        // A self-transfer leaves both counts unchanged.
        uint256 lost = from == address(0) ? 0 : fromUnits - balanceOf[from] / UNIT;
        uint256 gained = to == address(0) ? 0 : balanceOf[to] / UNIT - toUnits;
        uint256 moved = lost < gained ? lost : gained;
        for (uint256 i = 0; i < moved; i++) _moveId(from, to, _lastOwned(from));
        for (uint256 i = moved; i < lost; i++) _moveId(from, address(0), _lastOwned(from));
        for (uint256 i = moved; i < gained; i++) _moveId(address(0), to, ID_PREFIX + ++minted);
    }

    function _lastOwned(address holder) private view returns (uint256) {
        uint256[] storage list = _owned[holder];
        return list[list.length - 1];
    }

    function _moveId(address from, address to, uint256 id) private {
        if (from != address(0)) {
            uint256[] storage list = _owned[from];
            uint256 index = _ownedIndex[id];
            uint256 last = list[list.length - 1];
            list[index] = last;
            _ownedIndex[last] = index;
            list.pop();
            delete getApproved[id];
        }
        if (to != address(0)) {
            _ownedIndex[id] = _owned[to].length;
            _owned[to].push(id);
        }
        _ownerOf[id] = to;
        emit ERC721Events.Transfer(from, to, id);
    }
}
